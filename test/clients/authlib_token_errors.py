"""Authlib, a standard OAuth 2 client library, against the token endpoints of a running service.

As a public client (client_id in the body, no client authentication), it signs in, refreshes and revokes,
and meets the errors: each must surface as authlib's OAuthError with the RFC 6749 error code, never as a
"token" made of a problem body. Run by scripts/clients/run-authlib.sh, which starts the service and passes:

    AUTHLIB_BASE_URL  the service's address
    AUTHLIB_USERNAME  a user's e-mail address
    AUTHLIB_PASSWORD  its password

Prints one line per check and a closing `authlib: N passed, M failed`; exits 1 if any failed.
"""

import os
import sys
import traceback

from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session

base = os.environ["AUTHLIB_BASE_URL"]
username = os.environ["AUTHLIB_USERNAME"]
password = os.environ["AUTHLIB_PASSWORD"]
token_url = f"{base}/auth/token"
revocation_url = f"{base}/auth/revoke"


def session() -> OAuth2Session:
    """A public client: client_id sent in the body, no secret (token_endpoint_auth_method none)."""
    return OAuth2Session(client_id="demo", token_endpoint_auth_method="none")


def sign_in(password_: str = password) -> dict:
    return session().fetch_token(token_url, grant_type="password", username=username, password=password_)


def expect_oauth_error(code: str, attempt) -> None:
    try:
        answer = attempt()
    except OAuthError as error:
        assert error.error == code, f"expected OAuthError {code!r}, got {error.error!r}: {error.description}"
        assert error.description, "the OAuthError carries no error_description"
        return
    raise AssertionError(f"expected OAuthError {code!r}; authlib returned {answer!r}")


def signs_in_and_refreshes() -> None:
    token = sign_in()
    assert token["token_type"] == "Bearer" and token["expires_in"] == 3600, token
    me = session()
    me.token = token
    assert me.get(f"{base}/users/me").status_code == 200
    renewed = session().refresh_token(token_url, refresh_token=token["refresh_token"])
    assert renewed["refresh_token"] != token["refresh_token"], renewed


def revokes() -> None:
    token = sign_in()
    response = session().revoke_token(revocation_url, token=token["refresh_token"], token_type_hint="refresh_token")
    assert response.status_code == 200, response.status_code
    expect_oauth_error("invalid_grant", lambda: session().refresh_token(token_url, refresh_token=token["refresh_token"]))


def wrong_password() -> None:
    expect_oauth_error("invalid_grant", lambda: sign_in("not the password"))


def bad_refresh_token() -> None:
    expect_oauth_error("invalid_grant", lambda: session().refresh_token(token_url, refresh_token="not-a-token-we-issued"))


def spent_refresh_token() -> None:
    token = sign_in()
    session().refresh_token(token_url, refresh_token=token["refresh_token"])
    expect_oauth_error("invalid_grant", lambda: session().refresh_token(token_url, refresh_token=token["refresh_token"]))


def unsupported_grant() -> None:
    expect_oauth_error("unsupported_grant_type", lambda: session().fetch_token(token_url, grant_type="client_credentials"))


def missing_parameter() -> None:
    expect_oauth_error("invalid_request", lambda: session().fetch_token(token_url, grant_type="password", username=username))


checks = [
    ("signs in (password grant) and refreshes", signs_in_and_refreshes),
    ("revokes a refresh token (RFC 7009); it is refused from then on", revokes),
    ("a wrong password: OAuthError invalid_grant", wrong_password),
    ("an unknown refresh token: OAuthError invalid_grant", bad_refresh_token),
    ("a spent refresh token: OAuthError invalid_grant", spent_refresh_token),
    ("an unsupported grant type: OAuthError unsupported_grant_type", unsupported_grant),
    ("a missing password: OAuthError invalid_request", missing_parameter),
]

passed = failed = 0
for name, check in checks:
    try:
        check()
    except Exception:  # noqa: BLE001 - every failure is reported, then counted
        failed += 1
        print(f"[authlib] FAIL {name}")
        traceback.print_exc()
    else:
        passed += 1
        print(f"[authlib] ok   {name}")

print(f"authlib: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
