-- Test-only s2s routing for CallScope's federation test (docs/peer-to-peer.md, "Federation").
-- Two Prosody servers on one machine cannot find each other through DNS: each listens for s2s on
-- a free loopback port, and Prosody 0.12's resolver looks up _xmpp-server._tcp SRV records (and
-- answers special-use names such as .test itself). This module makes the outgoing s2s connection
-- to a domain listed in `callscope_s2s_routes` go straight to the address and port given there:
--   callscope_s2s_routes = { ["b.callscope.example"] = { host = "127.0.0.1", port = 25269 } }
-- Every other domain is resolved as usual. It wraps `net.resolvers.service`'s `new`, the function
-- mod_s2s calls for every new outgoing connection (and for dialback's connection back), and puts
-- the original back when unloaded.
-- Global (loaded once per server, not per VirtualHost): the function it wraps is process-wide.
module:set_global();

local service = require "net.resolvers.service";
local basic = require "net.resolvers.basic";

local routes = module:get_option("callscope_s2s_routes", {});

if not service.callscope_original_new then
	service.callscope_original_new = service.new;
end
local original_new = service.callscope_original_new;

service.new = function (hostname, service_name, conn_type, extra)
	local route = service_name == "xmpp-server" and routes[hostname];
	if route then
		module:log("debug", "s2s to %s routed to %s:%d", hostname, route.host, route.port);
		return basic.new(route.host, route.port, conn_type, extra);
	end
	return original_new(hostname, service_name, conn_type, extra);
end;

function module.unload()
	service.new = original_new;
end
