import assert from "node:assert/strict";
import { listeningUrls } from "./listen_urls.ts";

const interfaces: Deno.NetworkInterfaceInfo[] = [
  {
    name: "lo",
    family: "IPv4",
    address: "127.0.0.1",
    netmask: "255.0.0.0",
    scopeid: null,
    cidr: "127.0.0.1/8",
    mac: "",
  },
  {
    name: "eth0",
    family: "IPv4",
    address: "192.0.2.2",
    netmask: "255.255.255.0",
    scopeid: null,
    cidr: "192.0.2.2/24",
    mac: "",
  },
  {
    name: "lo",
    family: "IPv6",
    address: "::1",
    netmask: "",
    scopeid: 0,
    cidr: "::1/128",
    mac: "",
  },
  {
    name: "eth0",
    family: "IPv6",
    address: "fe80::1",
    netmask: "",
    scopeid: 2,
    cidr: "fe80::1/64",
    mac: "",
  },
  {
    name: "eth0",
    family: "IPv6",
    address: "fd00::2",
    netmask: "",
    scopeid: 0,
    cidr: "fd00::2/64",
    mac: "",
  },
];

Deno.test("listeningUrls() prints a specific address as it is", () => {
  assert.deepEqual(
    listeningUrls("127.0.0.1", 8080, { secure: false, interfaces }),
    ["http://127.0.0.1:8080/"],
  );
  assert.deepEqual(listeningUrls("::1", 8443, { secure: true, interfaces }), [
    "https://[::1]:8443/",
  ]);
});

Deno.test("listeningUrls() lists loopback then LAN addresses for a wildcard", () => {
  assert.deepEqual(
    listeningUrls("0.0.0.0", 80, { secure: false, interfaces }),
    [
      "http://127.0.0.1:80/",
      "http://192.0.2.2:80/",
    ],
  );
  assert.deepEqual(listeningUrls("::", 80, { secure: false, interfaces }), [
    "http://[::1]:80/",
    "http://127.0.0.1:80/",
    "http://192.0.2.2:80/",
    "http://[fd00::2]:80/",
  ]);
});
