import Foundation

/// What makes a `ProsodyServers` one of a federation: its own domain, its s2s port, and where the
/// other domains' s2s ports are (Rig/prosody/prosody-federated.cfg.lua with the test-only
/// mod_callscope_s2s_routes; no DNS is involved).
struct FederatedServer {
    /// The domain this server hosts.
    let domain: String
    /// Its s2s port on loopback (picked free by the caller, so peers can be told before it starts).
    let s2sPort: UInt16
    /// Other domains → their s2s port on loopback.
    let routes: [String: UInt16]
    /// Seconds before an s2s connection that did not authenticate is closed (Prosody's `s2s_timeout`).
    let s2sTimeout: Int

    /// The template's placeholders for this server.
    func substitutions(address: String) -> [String: String] {
        let table = routes.sorted { $0.key < $1.key }
            .map { "[\"\($0.key)\"] = { host = \"\(address)\", port = \($0.value) }" }
            .joined(separator: "; ")
        return ["@S2S_PORT@": "\(s2sPort)", "@S2S_ROUTES@": table, "@S2S_TIMEOUT@": "\(s2sTimeout)",
                "@MODULE_DIR@": RigProcess.repository.appendingPathComponent("Rig/prosody").path]
    }
}
