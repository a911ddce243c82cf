-- One of the two federated Prosody servers of CallScope's federation test (docs/peer-to-peer.md,
-- "Federation"): the same client side as prosody.cfg.lua (ws:// on loopback, SCRAM-SHA-1,
-- XEP-0198, XEP-0215 with coturn's shared secret), plus server-to-server (s2s) on a free loopback
-- port, authenticated with dialback (XEP-0220) over plain TCP: no certificates, no TLS.
-- Peers are found through the test-only module mod_callscope_s2s_routes (beside this file),
-- since there is no DNS for the test domains. The tests fill in the @...@ placeholders in a copy.
run_as_root = true
pidfile = "@RUN_DIR@/prosody.pid"
data_path = "@RUN_DIR@/data"
certificates = "@RUN_DIR@"
log = { info = "@RUN_DIR@/prosody.log", error = "@RUN_DIR@/prosody.err" }
plugin_paths = { "@MODULE_DIR@" }

interfaces = { "@LISTEN_IP@" }
c2s_ports = { @C2S_PORT@ }
s2s_interfaces = { "@LISTEN_IP@" }
s2s_ports = { @S2S_PORT@ }
component_ports = { }
http_interfaces = { "@LISTEN_IP@" }
http_ports = { @HTTP_PORT@ }
https_ports = { }
http_default_host = "@DOMAIN@"

c2s_require_encryption = false
allow_unencrypted_plain_auth = true
consider_websocket_secure = true
authentication = "internal_hashed"
storage = "internal"

-- s2s without TLS: dialback proves a domain by a connection back to it (XEP-0220).
s2s_require_encryption = false
s2s_secure_auth = false
-- An s2s connection that is not authenticated within this many seconds is closed, and the
-- stanzas waiting for it bounce with remote-server-not-found (the default is 90 s).
s2s_timeout = @S2S_TIMEOUT@
callscope_s2s_routes = { @S2S_ROUTES@ }

modules_enabled = {
    "roster"; "saslauth"; "disco"; "ping"; "posix";
    "websocket";        -- XMPP over WebSocket (RFC 7395) at /xmpp-websocket
    "smacks";           -- stream management and resumption (XEP-0198)
    "turn_external";    -- STUN/TURN with coturn's shared secret (XEP-0215)
    "dialback";         -- s2s authentication without certificates (XEP-0220)
    "callscope_s2s_routes"; -- the other test domain's s2s port on loopback
}
modules_disabled = { "offline"; "tls" }

turn_external_secret = "@TURN_SECRET@"
turn_external_host = "@TURN_HOST@"
turn_external_port = @TURN_PORT@
turn_external_tcp = true
turn_external_ttl = 86400

smacks_hibernation_time = 60

VirtualHost "@DOMAIN@"
