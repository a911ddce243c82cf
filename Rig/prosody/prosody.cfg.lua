-- Prosody for CallScope's real XMPP tests (docs/peer-to-peer.md). The tests copy this file into
-- their own temporary directory with the @...@ placeholders filled in (ports picked free at run
-- time, the coturn secret of the run) and start `prosody --config FILE -F` on the copy.
-- Plain ws:// on loopback: no TLS, so encryption is not required and WebSocket counts as secure.
run_as_root = true
pidfile = "@RUN_DIR@/prosody.pid"
data_path = "@RUN_DIR@/data"
certificates = "@RUN_DIR@"
log = { info = "@RUN_DIR@/prosody.log", error = "@RUN_DIR@/prosody.err" }

interfaces = { "@LISTEN_IP@" }
c2s_ports = { @C2S_PORT@ }
s2s_ports = { }
component_ports = { }
http_interfaces = { "@LISTEN_IP@" }
http_ports = { @HTTP_PORT@ }
https_ports = { }
-- Without this the WebSocket module advertises itself under the domain name, which need not resolve.
http_default_host = "@DOMAIN@"

c2s_require_encryption = false
s2s_require_encryption = false
allow_unencrypted_plain_auth = true
consider_websocket_secure = true
authentication = "internal_hashed"
storage = "internal"

modules_enabled = {
    "roster"; "saslauth"; "disco"; "ping"; "posix";
    "websocket";        -- XMPP over WebSocket (RFC 7395) at /xmpp-websocket
    "smacks";           -- stream management and resumption (XEP-0198)
    "turn_external";    -- STUN/TURN with coturn's shared secret (XEP-0215)
}
modules_disabled = { "s2s"; "offline"; "tls" }

-- coturn's `static-auth-secret` with `use-auth-secret`: credentials are
-- username = expiry (Unix seconds), password = base64(HMAC-SHA1(secret, username)).
turn_external_secret = "@TURN_SECRET@"
turn_external_host = "@TURN_HOST@"
turn_external_port = @TURN_PORT@
turn_external_tcp = true
turn_external_ttl = 86400

-- A lost client stays resumable (and "available" to its friends) this long.
smacks_hibernation_time = 60

VirtualHost "@DOMAIN@"
