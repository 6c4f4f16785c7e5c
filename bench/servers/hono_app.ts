// The Hono app of the web benchmarks: a parameter route answering JSON, as
// a small API does. Served by Deno.serve and by @org/httpd's serve().
import { Hono } from "hono";

export const app = new Hono();
app.get("/users/:id", (c) => c.json({ id: c.req.param("id"), name: "Ada" }));
app.get("/", (c) => c.text("Hello, World!"));
