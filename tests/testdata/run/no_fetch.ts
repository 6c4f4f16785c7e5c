/** A default export without `fetch`: `httpd-cli run` refuses it. */
export default {
  handler(): Response {
    return new Response("never");
  },
};
