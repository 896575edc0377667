// The login page: the code comes in the link's fragment (never sent to a server) or is pasted;
// it is removed from the address bar at once, then exchanged (POST /session) for the session
// cookie, and the page goes to the dashboard at a clean URL.

const form = document.getElementById("login");
const error = document.getElementById("login-error");

async function logIn(code) {
  error.textContent = "";
  const r = await fetch("/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }) });
  if (r.ok) {
    location.replace("/");
    return;
  }
  const body = await r.json().catch(() => ({}));
  error.textContent = body.error?.message ?? `login refused (${r.status})`;
}

const fromLink = new URLSearchParams(location.hash.slice(1)).get("code");
if (location.hash !== "" || location.search !== "") history.replaceState(null, "", "/login");
if (fromLink) void logIn(fromLink);

form.addEventListener("submit", (e) => {
  e.preventDefault();
  void logIn(new FormData(form).get("code").trim());
});
