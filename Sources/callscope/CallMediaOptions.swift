import Calls
import CallsChromium

/// `callscope call --width W --height H --fps N --bitrates q,h,f --camera-file FILE`: what the
/// publisher captures and sends (the rig's scenarios set these). Parsed here so that
/// `CallCommand` only hands the options over.
struct CallMediaOptions {
    static let options: Set<String> = ["--width", "--height", "--fps", "--bitrates", "--camera-file"]
    static let help = """
    --width W --height H (default 960x540) and --fps N (default 30) size the fake camera; the
    three simulcast layers f/h/q are 1/1, 1/2 and 1/4 of it, with maxBitrate --bitrates q,h,f
    (bit/s, default 150000,500000,1500000). Below 960x540 Chromium is started with
    --force-fieldtrials=WebRTC-LegacySimulcastLayerLimit/Disabled/ so that all three layers
    still flow. --camera-file FILE.y4m (or .mjpeg, sized W x H) is the camera, looped, instead
    of Chromium's test pattern.
    """

    private(set) var width = 960
    private(set) var height = 540
    private(set) var frameRate = 30
    /// maxBitrate of the q, h and f layers.
    private(set) var bitrates = [150_000, 500_000, 1_500_000]
    private(set) var cameraFile: String?

    /// Takes one of ``options`` and its value.
    mutating func take(_ option: String, _ text: String) throws {
        func count(_ limit: Int) throws -> Int {
            guard let value = Int(text), value > 0, value <= limit else { throw UsageError("\(option) takes a whole number from 1 to \(limit), not '\(text)'") }
            return value
        }
        switch option {
        case "--width": width = try count(7680)
        case "--height": height = try count(4320)
        case "--fps": frameRate = try count(240)
        case "--bitrates":
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            let values = parts.compactMap { Int($0) }.filter { $0 > 0 }
            guard parts.count == 3, values.count == 3 else {
                throw UsageError("--bitrates takes three bit rates q,h,f in bit/s, e.g. 150000,500000,1500000, not '\(text)'")
            }
            bitrates = values
        default: cameraFile = text
        }
    }

    /// The publisher's capture and layers: f, h, q (highest first, as Janus maps them).
    var localMedia: LocalMediaSettings {
        LocalMediaSettings(width: width, height: height, frameRate: frameRate, encodings: [
            .init(rid: "f", scaleResolutionDownBy: 1, maxBitrate: bitrates[2]),
            .init(rid: "h", scaleResolutionDownBy: 2, maxBitrate: bitrates[1]),
            .init(rid: "q", scaleResolutionDownBy: 4, maxBitrate: bitrates[0]),
        ])
    }

    /// The camera's frame rate and file, and the field trial a small camera needs.
    func apply(to chromium: inout ChromiumOptions) {
        chromium.fakeCameraFrameRate = frameRate
        if let cameraFile { chromium.fakeCameraFile = cameraFile }
        if width * height < 960 * 540 {
            // libwebrtc allows fewer simulcast layers below 960x540 (2 at 640x360).
            chromium.extraArguments.append("--force-fieldtrials=WebRTC-LegacySimulcastLayerLimit/Disabled/")
        }
    }
}
