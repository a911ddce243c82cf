// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CallScope",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "CallScopeCore", targets: ["CallScopeCore"]),
        .library(name: "RTCStats", targets: ["RTCStats"]),
        .library(name: "Observability", targets: ["Observability"]),
        .library(name: "VideoFrames", targets: ["VideoFrames"]),
        .library(name: "CallScopeReplay", targets: ["CallScopeReplay"]),
        .library(name: "Connectivity", targets: ["Connectivity"]),
        .library(name: "ConnectivityProbe", targets: ["ConnectivityProbe"]),
        .library(name: "CallScopeExport", targets: ["CallScopeExport"]),
        .library(name: "Calls", targets: ["Calls"]),
        .library(name: "CallsJanus", targets: ["CallsJanus"]),
        .library(name: "CallsChromium", targets: ["CallsChromium"]),
        .library(name: "CallScopeTesting", targets: ["CallScopeTesting"]),
        .library(name: "XMPP", targets: ["XMPP"]),
        .library(name: "XMPPClient", targets: ["XMPPClient"]),
        .library(name: "FriendConnections", targets: ["FriendConnections"]),
        .library(name: "Jingle", targets: ["Jingle"]),
        .library(name: "Friends", targets: ["Friends"]),
        .library(name: "CallsJingle", targets: ["CallsJingle"]),
        .executable(name: "callscope", targets: ["callscope"]),
    ],
    targets: [
        // Floor zero, under every other module: typed ids, the lock, the event fan-out, coded
        // errors, hysteresis. A product because public API elsewhere names its types.
        .target(name: "CallScopeCore"),
        .target(name: "RTCStats", dependencies: ["CallScopeCore"]),
        .target(name: "Observability", dependencies: ["CallScopeCore", "RTCStats"]),
        // AVX2 kernels Swift cannot compile for one function (docs/speed.md): C, each function with
        // `__attribute__((target("avx2")))`, chosen at run time; no unsafe flags.
        .target(name: "CVideoFramesAVX2"),
        .target(name: "VideoFrames", dependencies: ["CVideoFramesAVX2"]),
        // libyuv loaded at run time, for the tests and `callscope frames bench`: not a product.
        .target(name: "VideoFramesReference", dependencies: ["VideoFrames"]),
        .target(name: "Calls", dependencies: ["CallScopeCore", "Observability", "RTCStats", "Connectivity", "VideoFrames"]),
        .target(name: "CallsJanus", dependencies: ["CallScopeCore", "Calls", "Observability", "RTCStats"]),
        .target(name: "CallsChromium", dependencies: ["CallScopeCore", "Calls", "Observability", "RTCStats", "VideoFrames", "WebSocket"]),
        .target(name: "CallScopeTesting", dependencies: ["CallScopeCore", "Calls", "Observability", "RTCStats", "VideoFrames"]),
        .target(name: "CallScopeReplay", dependencies: ["Observability", "RTCStats"]),
        // Discoverability: the portable part (crypto, STUN codec, state machine; no I/O, no clock)
        // and the platform part (POSIX sockets, the clock) that runs the probes.
        .target(name: "Connectivity", dependencies: ["CallScopeCore"]),
        .target(name: "ConnectivityProbe", dependencies: ["Connectivity"]),
        // RFC 6455, portable and for both ends (no I/O): the handshakes, the frame header and
        // decoder for either role, the encoder. Used by the XMPP client and the frame channel.
        .target(name: "WebSocket", dependencies: ["Connectivity"]),
        .target(name: "CallScopeExport", dependencies: ["CallScopeCore", "Observability"]),
        // XMPP (docs/peer-to-peer.md): the portable protocol core (XML, SASL, stream negotiation,
        // roster, XEP-0198/0215; no I/O, no clock) and the client with its WebSocket transports.
        .target(name: "XMPP", dependencies: ["CallScopeCore", "Connectivity"]),
        .target(name: "XMPPClient", dependencies: ["CallScopeCore", "Connectivity", "ConnectivityProbe", "XMPP", "WebSocket"]),
        // Friend connections (issue 24 item 2), portable: the path tracker as a value (no I/O).
        .target(name: "FriendConnections", dependencies: ["XMPP", "RTCStats"]),
        // Jingle (issue 24 item 3), portable: the XEP-0166 family as values, their XML, and the
        // mapping to and from the SDP Chromium/libwebrtc speak (no I/O, no clock).
        .target(name: "Jingle", dependencies: ["CallScopeCore", "XMPP"]),
        // Seed 003's friend manager (issue 24 item 2): discoverability, friends and one
        // data-channel peer connection per online friend, over the XMPP client and a media engine.
        .target(name: "Friends", dependencies: ["CallScopeCore", "Calls", "Connectivity", "ConnectivityProbe", "FriendConnections", "Jingle", "Observability", "RTCStats", "XMPP", "XMPPClient"]),
        // A relayed two-party call (issue 24 item 3): the Calls `Signaling` over XMPP + Jingle.
        .target(name: "CallsJingle", dependencies: ["Calls", "Jingle", "XMPP", "XMPPClient"]),
        .executableTarget(name: "callscope", dependencies: ["CallScopeCore", "RTCStats", "Observability", "CallScopeReplay", "CallScopeExport", "VideoFrames", "VideoFramesReference", "Connectivity", "ConnectivityProbe", "Calls", "CallsJanus", "CallsChromium", "XMPP", "XMPPClient", "FriendConnections", "Friends", "CallsJingle"]),
        // libFuzzer targets for every reader (Scripts/fuzz.sh builds it with -sanitize=fuzzer,address).
        .executableTarget(name: "CallScopeFuzz", dependencies: ["RTCStats", "Observability", "VideoFrames", "XMPP", "Jingle"]),
        // A scripted in-memory XMPP server for the unit tests of the XMPP client and its users.
        .target(name: "XMPPTesting", dependencies: ["CallScopeCore", "XMPP", "XMPPClient"]),
        .target(
            name: "CallScopeTestSupport",
            dependencies: ["RTCStats", "Observability"],
            path: "Sources/CallScopeTestSupport"
        ),
        .testTarget(
            name: "RTCStatsTests",
            dependencies: ["RTCStats", "CallScopeTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ObservabilityTests",
            dependencies: ["CallScopeCore", "Observability", "RTCStats", "CallScopeReplay", "CallScopeTestSupport"]
        ),
        .testTarget(name: "CommandLineTests", dependencies: ["callscope", "CallScopeCore", "Observability", "RTCStats", "CallScopeTestSupport", "Calls", "CallScopeTesting", "VideoFrames"]),
        .testTarget(name: "CallScopeExportTests", dependencies: ["CallScopeExport", "Observability", "RTCStats"]),
        .testTarget(name: "VideoFramesTests", dependencies: ["VideoFrames", "VideoFramesReference", "RTCStats", "CallScopeTestSupport"]),
        .testTarget(name: "ConnectivityTests", dependencies: ["Connectivity", "ConnectivityProbe", "CallScopeTestSupport"]),
        .testTarget(name: "XMPPTests", dependencies: ["XMPP", "XMPPClient", "XMPPTesting", "Connectivity"]),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket"]),
        .testTarget(name: "FriendConnectionsTests", dependencies: ["FriendConnections", "XMPP", "RTCStats"]),
        .testTarget(name: "FriendsTests", dependencies: ["Friends", "Jingle", "Calls", "CallScopeCore", "CallScopeTesting", "Connectivity", "FriendConnections", "Observability", "RTCStats", "XMPP", "XMPPClient", "XMPPTesting"]),
        .testTarget(name: "CallsJingleTests", dependencies: ["CallsJingle", "Calls", "CallScopeCore", "Jingle", "XMPP", "XMPPClient", "XMPPTesting"]),
        .testTarget(name: "JingleTests", dependencies: ["Jingle", "XMPP"], resources: [.copy("Fixtures")]),
        // The Jingle <-> SDP mapping between two real Chromium peer connections (CALLSCOPE_REAL=1).
        .testTarget(name: "JingleRealTests", dependencies: ["Jingle", "XMPP"]),
        // The XMPP client on a real Prosody and coturn (CALLSCOPE_REAL=1; Scripts/test.sh).
        .testTarget(name: "XMPPRealTests", dependencies: ["CallScopeTestSupport", "CallsJingle", "XMPP", "XMPPClient", "Connectivity", "ConnectivityProbe", "Friends", "FriendConnections", "Calls", "CallsChromium", "Observability"]),
        .testTarget(name: "CallsTests", dependencies: ["CallScopeCore", "Calls", "CallsJanus", "CallScopeTesting", "Observability", "RTCStats", "Connectivity", "VideoFrames"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CallsRealTests", dependencies: ["CallScopeTestSupport", "CallScopeCore", "Calls", "CallScopeTesting", "CallsJanus", "CallsChromium", "Observability", "RTCStats", "Connectivity", "ConnectivityProbe", "VideoFrames", "WebSocket"]),
    ]
)

// The iOS adapter over Apple's (Google's) WebRTC.framework exists only when this manifest is
// evaluated on a Mac (a manifest `#if` sees the host, not the destination): Linux builds never
// name, resolve or fetch the binary. CALLSCOPE_NO_WEBRTC=1 leaves it out on a Mac too (offline
// jobs, the portable tests). The binary is stasel/WebRTC (Google's sources, unmodified), pinned.
#if os(macOS)
if Context.environment["CALLSCOPE_NO_WEBRTC"] != "1" {
    package.dependencies.append(.package(url: "https://github.com/stasel/WebRTC.git", exact: "130.0.0"))
    package.products.append(.library(name: "CallsWebRTC", targets: ["CallsWebRTC"]))
    package.targets.append(.target(name: "CallsWebRTC", dependencies: [
        "CallScopeCore", "Calls", "Observability", "RTCStats", "VideoFrames",
        .product(name: "WebRTC", package: "WebRTC", condition: .when(platforms: [.iOS, .macOS])),
    ]))
}
#endif

// Swift 6 language mode (complete strict concurrency checking) on every target, from one place.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
}
