import CallsChromium
import Testing

@testable import callscope

/// `callscope call --frame-address ADDR`: where a remote browser sends video frames.
struct FrameAddressOptionTests {
    private let janus = ["--janus", "http://127.0.0.1:8088/janus"]

    @Test func theAddressReachesTheEngineOptions() throws {
        let call = try CallCommand(arguments: janus + ["--webdriver", "http://10.203.7.2:9515", "--frame-address", "10.203.7.1",
                                                       "--save-video", "/tmp/frames"])
        #expect(call.chromium.frameChannelAddress == "10.203.7.1")
    }

    @Test func ownBrowserNeedsNoAddress() throws {
        let call = try CallCommand(arguments: janus + ["--save-video", "/tmp/frames"])
        #expect(call.chromium.frameChannelAddress == nil)
    }

    @Test(arguments: [
        ["--webdriver", "http://10.203.7.2:9515", "--save-video", "/tmp/frames"],
        ["--frame-address", "localhost"],
        ["--frame-address", "10.0.0"],
        ["--frame-address", "10.0.0.256"],
        ["--frame-address", "10.0..1"],
        ["--frame-address", "::1"],
    ])
    func refusedAsUsageErrors(arguments: [String]) {
        #expect(throws: UsageError.self) { try CallCommand(arguments: janus + arguments) }
    }
}
