"""The h11 side of the HTTP/1.1 differential (fuzz/differential/h11.ts).

Reads inputs from stdin, each a 4-byte big-endian length then that many
bytes, and writes one JSON line per input: whether h11 (as a server) accepts
the first request, where it ends, its request line, fields, body and
trailers. Strings are Latin-1, one character per byte.
"""

import json
import struct
import sys

import h11


def judge(data):
    conn = h11.Connection(our_role=h11.SERVER)
    conn.receive_data(data)
    out = {"s": "incomplete"}
    body = b""
    try:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return out
            if isinstance(event, h11.Request):
                out = {
                    "s": "incomplete",
                    "m": event.method.decode("latin-1"),
                    "t": event.target.decode("latin-1"),
                    "v": event.http_version.decode("latin-1"),
                    "h": [
                        [n.decode("latin-1"), v.decode("latin-1")]
                        for n, v in event.headers
                    ],
                }
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                out["s"] = "ok"
                out["b"] = body.decode("latin-1")
                out["tr"] = [
                    [n.decode("latin-1"), v.decode("latin-1")]
                    for n, v in event.headers
                ]
                out["e"] = len(data) - len(conn.trailing_data[0])
                return out
            elif isinstance(event, h11.ConnectionClosed):
                return out
    except h11.RemoteProtocolError as error:
        return {"s": "error", "err": str(error)}


def main():
    stdin = sys.stdin.buffer
    stdout = sys.stdout
    while True:
        head = stdin.read(4)
        if len(head) < 4:
            break
        (length,) = struct.unpack(">I", head)
        data = stdin.read(length)
        stdout.write(json.dumps(judge(data)) + "\n")
    stdout.flush()


main()
