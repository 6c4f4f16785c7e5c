// Shows the build identification the server sends with every response.
const res = await fetch(location.href, { method: "HEAD" });
document.getElementById("server").textContent =
  res.headers.get("x-service-build") ??
    res.headers.get("server") ?? "unknown";
