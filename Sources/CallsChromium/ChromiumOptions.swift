import Foundation

/// Where chromedriver and Chromium are and how Chromium is started.
public struct ChromiumOptions: Sendable, Hashable {
    /// The chromedriver executable (Debian: `chromium-driver`).
    public var chromedriverPath: String
    /// The Chromium binary chromedriver starts (Debian: `/usr/lib/chromium/chromium`).
    public var chromiumPath: String
    /// Frame rate of Chromium's fake camera.
    public var fakeCameraFrameRate: Int
    /// A Y4M or MJPEG file to use as the camera instead of Chromium's test pattern.
    public var fakeCameraFile: String?
    /// Let peer connections use loopback addresses (needed when Janus runs on this host).
    public var allowLoopbackInPeerConnection: Bool
    /// More Chromium command-line switches.
    public var extraArguments: [String]
    /// How often the engine asks the page for queued events when no command brought them.
    public var eventPollInterval: Duration
    /// A directory for the page, Chromium's profile and chromedriver's log; a fresh temporary
    /// one when `nil`.
    public var workDirectory: String?
    /// A WebDriver endpoint that already serves browsers (`http://host:port`, a chromedriver
    /// elsewhere or a Selenium Grid, with its path such as `/wd/hub` when it has one): the
    /// engine creates its browser session there instead of starting chromedriver, and nothing
    /// assumes that browser shares our loopback (see ``ChromiumMediaEngine``). `nil`: our own
    /// chromedriver and Chromium, on this host. With an endpoint, ``chromedriverPath``,
    /// ``chromiumPath`` and ``workDirectory`` are not used (the endpoint's own browser runs
    /// with its own profile), and ``fakeCameraFile`` is a path on the browser's host.
    public var webDriverURL: URL?
    /// The IPv4 address of this host on which the frame channel listens and which the browser
    /// connects to for video frames (docs/video-chromium.md). `nil`: `127.0.0.1` for a browser of
    /// our own; with ``webDriverURL`` an address the browser's host can reach must be given, as
    /// frames go from the browser back to us (commands and stats need no such route).
    public var frameChannelAddress: String?

    /// Creates options with Debian's paths.
    public init(chromedriverPath: String = "/usr/bin/chromedriver", chromiumPath: String = "/usr/lib/chromium/chromium",
                fakeCameraFrameRate: Int = 30, fakeCameraFile: String? = nil, allowLoopbackInPeerConnection: Bool = true,
                extraArguments: [String] = [], eventPollInterval: Duration = .milliseconds(100), workDirectory: String? = nil,
                webDriverURL: URL? = nil, frameChannelAddress: String? = nil) {
        self.chromedriverPath = chromedriverPath
        self.chromiumPath = chromiumPath
        self.fakeCameraFrameRate = fakeCameraFrameRate
        self.fakeCameraFile = fakeCameraFile
        self.allowLoopbackInPeerConnection = allowLoopbackInPeerConnection
        self.extraArguments = extraArguments
        self.eventPollInterval = eventPollInterval
        self.workDirectory = workDirectory
        self.webDriverURL = webDriverURL
        self.frameChannelAddress = frameChannelAddress
    }

    /// The switches Chromium runs with: headless, fake camera and microphone without a prompt,
    /// no throttling of a background page, mDNS hiding of host candidates off; `profile` is the
    /// user-data directory (`nil`: the one the WebDriver endpoint picks).
    func chromiumArguments(profile: String?) -> [String] {
        var arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio",
            "--use-fake-device-for-media-stream=fps=\(fakeCameraFrameRate)", "--use-fake-ui-for-media-stream",
            "--autoplay-policy=no-user-gesture-required",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            "--disable-features=WebRtcHideLocalIpsWithMdns,MediaRouter,OptimizationHints,Translate",
            "--allow-file-access-from-files",
        ]
        if let profile { arguments.append("--user-data-dir=\(profile)") }
        if let fakeCameraFile { arguments.append("--use-file-for-fake-video-capture=\(fakeCameraFile)") }
        if allowLoopbackInPeerConnection { arguments.append("--allow-loopback-in-peer-connection") }
        return arguments + extraArguments
    }
}
