# Varnish 7 in front of the order service: caches the catalogue as the service's Cache-Control says,
# purges it by the service's Surrogate-Key (the xkey vmod of Debian's varnish-modules), and passes
# everything private (orders, tokens, users) straight through. docs/caching-and-cdn.md explains it.
#
#   varnishd -a 127.0.0.1:6081 -f deploy/varnish/default.vcl      (scripts/services.sh varnish-start URL)
#
# Point the service's CACHE_PURGE_URLS at this Varnish (http://127.0.0.1:6081/): on every import the
# service sends `PURGE /` with `xkey-purge: <keys whose responses changed>`.
vcl 4.1;

import xkey;

# The service: the embedded default, or the distributed mode's method router. scripts/services.sh
# varnish-start writes a copy of this file with the address it is given.
backend default {
    .host = "127.0.0.1";
    .port = "3000";
}

# Who may purge: the service's processes. Loopback here; add the hosts of your query API processes.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (req.http.xkey-purge) {
            set req.http.n-gone = xkey.purge(req.http.xkey-purge);
            return (synth(200, "Purged " + req.http.n-gone + " objects"));
        }
        # Expires the objects but keeps them for revalidation: the next request asks the service with
        # If-None-Match, and a 304 refreshes them (for operators; the service purges with xkey-purge).
        if (req.http.xkey-softpurge) {
            set req.http.n-gone = xkey.softpurge(req.http.xkey-softpurge);
            return (synth(200, "Expired " + req.http.n-gone + " objects"));
        }
        return (synth(400, "PURGE takes an xkey-purge header"));
    }
    # Varnish's own checks of Host, of the method (writes pass, unknown methods pipe) and of cookies.
    call vcl_req_host;
    call vcl_req_method;
    call vcl_req_cookie;
    # Unlike Varnish's default, a request with Authorization is looked up too: only responses the
    # service marks public are ever stored (vcl_backend_response), and nothing here varies by user.
    return (hash);
}

sub vcl_backend_response {
    # The service names what a response shows; xkey tags the object with it, for PURGE above.
    if (beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    }
    # Stored only when the service says shared caches may: public, or an s-maxage; and for a request
    # sent with Authorization only when explicitly public (RFC 9111, section 3.5). Anything else
    # (private, no-store, no Cache-Control at all) is fetched anew for every request.
    if (beresp.http.Cache-Control !~ "(?i)(^|[ ,])(public|s-maxage=)" ||
        (bereq.http.Authorization && beresp.http.Cache-Control !~ "(?i)(^|[ ,])public([ ,]|$)")) {
        call vcl_beresp_hitmiss;
    }
    # Varnish's own rules: private, no-cache, no-store, Set-Cookie, Vary: * are never stored either.
    call vcl_builtin_backend_response;
    # What is stored: the service's freshness (s-maxage, else max-age) is the TTL, and no stale answer
    # goes out beyond it unless the service allows one (stale-while-revalidate).
    if (beresp.http.Cache-Control !~ "(?i)stale-while-revalidate") {
        set beresp.grace = 0s;
    }
    # Expired objects are kept a while so that Varnish revalidates them with If-None-Match: a 304
    # from the service renews them without sending the body again.
    set beresp.keep = 1h;
    return (deliver);
}

sub vcl_deliver {
    # The keys are for this cache only: they never leave it.
    unset resp.http.Surrogate-Key;
    unset resp.http.xkey;
}
