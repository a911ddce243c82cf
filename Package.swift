// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CallScope",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "RTCStats", targets: ["RTCStats"]),
        .library(name: "Observability", targets: ["Observability"]),
        .library(name: "VideoFrames", targets: ["VideoFrames"]),
        .library(name: "Calls", targets: ["Calls"]),
        .library(name: "CallsJanus", targets: ["CallsJanus"]),
        .library(name: "CallsChromium", targets: ["CallsChromium"]),
        .library(name: "CallScopeTesting", targets: ["CallScopeTesting"]),
        .executable(name: "callscope", targets: ["callscope"]),
    ],
    targets: [
        .target(name: "RTCStats"),
        .target(name: "Observability", dependencies: ["RTCStats"]),
        .target(name: "VideoFrames"),
        .target(name: "Calls", dependencies: ["Observability", "RTCStats"]),
        .target(name: "CallsJanus", dependencies: ["Calls", "RTCStats"]),
        .target(name: "CallsChromium", dependencies: ["Calls", "RTCStats"]),
        .target(name: "CallScopeTesting", dependencies: ["Calls", "RTCStats"]),
        .executableTarget(name: "callscope", dependencies: ["RTCStats", "Observability", "VideoFrames", "Calls", "CallsJanus", "CallsChromium"]),
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
            dependencies: ["Observability", "RTCStats", "CallScopeTestSupport"]
        ),
        .testTarget(name: "CallsTests", dependencies: ["Calls", "CallsJanus", "CallScopeTesting", "Observability", "RTCStats"]),
        .testTarget(name: "CallsRealTests", dependencies: ["Calls", "CallsJanus", "CallsChromium", "RTCStats"]),
        .testTarget(name: "VideoFramesTests", dependencies: ["VideoFrames", "RTCStats", "CallScopeTestSupport"]),
    ]
)

// Swift 6 language mode (complete strict concurrency checking) on every target, from one place.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
}
