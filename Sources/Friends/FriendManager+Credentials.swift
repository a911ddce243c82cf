import Foundation
import FriendConnections
import XMPP

// MARK: - Refreshing the XEP-0215 TURN credentials

extension FriendManager {
    /// Asks the XMPP server for its STUN/TURN servers again at half the TURN credentials'
    /// remaining lifetime (``TURNCredentialLifetime``); new friend connections and the
    /// discoverability probes use the new ones. A connection already set up keeps the
    /// credentials it was made with (the engine cannot change a connection's ICE servers): when
    /// they expire its relay allocation is refused, ICE fails and the connection is made anew.
    func scheduleCredentialRefresh(_ servers: FriendICEServers) {
        credentialRefresh?.cancel()
        guard let lifetime = servers.username.flatMap(TURNCredentialLifetime.init(username:)) else { return }
        let delay = lifetime.refreshDelay(now: Date().timeIntervalSince1970)
        credentialRefresh = Task { [weak self, clock] in
            try? await clock.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.refreshCredentials(previous: servers)
        }
    }

    func refreshCredentials(previous: FriendICEServers) async {
        guard started else { return }
        guard let services = try? await client.externalServices(), let servers = try? FriendICEServers(services) else {
            // Try again at half of what is left of the old ones.
            scheduleCredentialRefresh(previous)
            return
        }
        statistics.credentialRefreshes += 1
        peerConnection.iceServers = servers.urls
        peerConnection.username = servers.username
        peerConnection.credential = servers.password
        discoverabilityRun?.probing = configuration.makeProber(servers.probeConfiguration)
        scheduleCredentialRefresh(servers)
    }
}
