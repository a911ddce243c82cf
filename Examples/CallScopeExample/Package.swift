// swift-tools-version:6.0
// A minimal iOS app on CallScope: join a Janus room, show every subscriber's video with a stats
// overlay, Picture in Picture. Not part of the root package (Linux never builds it); built for
// the iOS Simulator by .github/workflows/apple.yml. See README.md.
import PackageDescription

let package = Package(
    name: "CallScopeExample",
    platforms: [.iOS(.v17)],   // Observation (@Observable)
    dependencies: [.package(name: "CallScope", path: "../..")],
    targets: [
        .executableTarget(
            name: "CallScopeExample",
            dependencies: [
                .product(name: "Calls", package: "CallScope"),
                .product(name: "CallsJanus", package: "CallScope"),
                .product(name: "CallsWebRTC", package: "CallScope"),
                .product(name: "Observability", package: "CallScope"),
                .product(name: "VideoFrames", package: "CallScope"),
            ],
            exclude: ["Info.plist"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
