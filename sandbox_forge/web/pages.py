"""The HTML of the sign-in and authorize pages: small, escaped, with no script."""

from __future__ import annotations

from html import escape

from starlette.responses import HTMLResponse

_STYLE = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;background:#f6f8fa;
color:#1f2328;margin:0}
main{max-width:380px;margin:48px auto;background:#fff;border:1px solid #d0d7de;
border-radius:6px;padding:24px}
h1{font-size:20px;font-weight:400;text-align:center}
label{display:block;margin:12px 0 4px;font-weight:600;font-size:14px}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:6px 8px;
font-size:14px;border:1px solid #d0d7de;border-radius:6px}
button{margin-top:16px;width:100%;padding:6px 12px;font-size:14px;border-radius:6px;
border:1px solid rgba(31,35,40,.15);cursor:pointer}
.primary{background:#1f883d;color:#fff}
.flash{background:#ffebe9;border:1px solid #ff818266;padding:8px 12px;border-radius:6px}
ul{padding-left:20px}
"""

NO_STORE = {"cache-control": "no-store", "x-frame-options": "deny"}


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    html = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)} · Sandbox forge</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )
    return HTMLResponse(html, status_code=status, headers=NO_STORE)


def _hidden(fields: dict[str, str]) -> str:
    return "".join(
        f"<input type='hidden' name='{escape(k)}' value='{escape(v)}'>" for k, v in fields.items()
    )


def login_page(
    csrf: str, return_to: str, login: str = "", error: str | None = None
) -> HTMLResponse:
    flash = f"<p class='flash' role='alert'>{escape(error)}</p>" if error else ""
    body = (
        "<h1>Sign in to the sandbox forge</h1>"
        f"{flash}"
        "<form method='post' action='/session'>"
        f"{_hidden({'authenticity_token': csrf, 'return_to': return_to})}"
        "<label for='login_field'>Username or email address</label>"
        f"<input type='text' id='login_field' name='login' value='{escape(login)}' "
        "autocomplete='username' autofocus>"
        "<label for='password'>Password</label>"
        "<input type='password' id='password' name='password' autocomplete='current-password'>"
        "<button type='submit' name='commit' class='primary'>Sign in</button>"
        "</form>"
    )
    return _page("Sign in", body, 401 if error else 200)


def authorize_page(
    csrf: str, login: str, app_name: str, scopes: tuple[str, ...], fields: dict[str, str]
) -> HTMLResponse:
    asked = (
        "<ul>" + "".join(f"<li><code>{escape(s)}</code></li>" for s in scopes) + "</ul>"
        if scopes
        else "<p>Read-only access to public information.</p>"
    )
    form = (
        "<form method='post' action='/login/oauth/authorize'>"
        f"{_hidden({'authenticity_token': csrf, **fields})}"
        "<button type='submit' name='authorize' value='1' id='js-oauth-authorize-btn' "
        f"class='primary'>Authorize {escape(app_name)}</button>"
        "<button type='submit' name='authorize' value='0' id='js-oauth-cancel-btn'>"
        "Cancel</button></form>"
    )
    body = (
        f"<h1>Authorize <strong>{escape(app_name)}</strong></h1>"
        f"<p><strong>{escape(app_name)}</strong> wants to access your "
        f"<strong>{escape(login)}</strong> account.</p>"
        f"<p>Requested permissions:</p>{asked}{form}"
        "<form method='post' action='/logout'>"
        f"{_hidden({'authenticity_token': csrf})}"
        f"<button type='submit'>Not {escape(login)}? Sign out</button></form>"
    )
    return _page(f"Authorize {app_name}", body)


def error_page(title: str, message: str, status: int) -> HTMLResponse:
    return _page(title, f"<h1>{escape(title)}</h1><p class='flash'>{escape(message)}</p>", status)
