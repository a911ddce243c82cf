import Foundation

/// A publisher's layers as its subscriber sees them, for the layer policy when the publisher
/// sends no sender stats (any WebRTC publisher that is not ours, or ours with
/// `senderStatsTrack` off; docs/adaptation.md, "Without sender stats").
///
/// Whether it simulcasts is the router's to say: Janus reports the substream it forwards
/// (`{"videoroom":"event","substream"}`) for a simulcast publisher only, so without such an
/// event the publisher sends one layer, substream 0. A layer's size is the size its frames
/// decode at, and its bitrate the video bitrate received on it in healthy intervals (no loss,
/// no shortfall: what the publisher sends, not what a full link lets through), smoothed. A
/// simulcast layer not seen yet is taken from the nearest one seen as Chromium's default
/// simulcast builds them: half the width and height per step down, and a third of the bitrate
/// (the rig's 960x540 / 480x270 / 240x135 layers sent ~500 / ~220 / ~80 kbit/s).
struct ObservedLayers: Sendable {
    /// Whether the layers come from here (no layers in the sender stats).
    var derived = false
    /// The highest substream the router said it forwards (`nil`: it never said; one layer).
    private(set) var routerTop: Int?
    private var sizes: [Int: (width: Int, height: Int)] = [:]
    private var rates: [Int: Double] = [:]

    /// The sizes and bitrate scale between two simulcast layers a step apart.
    static let sizeStep = 2
    static let bitrateStep = 3.0

    /// A single layer derived here: nothing to choose at the router (no substream, no temporal).
    var isSingleLayer: Bool { derived && routerTop == nil }

    /// The router forwards `substream` (its event).
    mutating func routerSubstream(_ substream: Int) {
        routerTop = max(routerTop ?? substream, substream)
    }

    /// A healthy interval decoded frames of `width`x`height` on `substream` at `bitrate` bps.
    mutating func note(substream: Int, width: Int, height: Int, bitrate: Double) {
        guard width > 0, height > 0, bitrate > 0, bitrate.isFinite else { return }
        sizes[substream] = (width, height)
        rates[substream] = rates[substream].map { 0.7 * $0 + 0.3 * bitrate } ?? bitrate
    }

    /// The layers, low to high: substreams 0 through the router's highest (just 0 without
    /// simulcast); empty until one has been seen with a rate.
    var layers: [SimulcastLayer] {
        guard let (seen, size) = sizes.max(by: { $0.key < $1.key }), let (rated, rate) = rates.max(by: { $0.key < $1.key }) else { return [] }
        let top = max(routerTop ?? 0, seen)
        return (0...top).map { substream in
            let known = sizes[substream]
            let steps = seen - substream
            let width = known?.width ?? Self.scaled(size.width, steps: steps)
            let height = known?.height ?? Self.scaled(size.height, steps: steps)
            let bitrate = rates[substream] ?? rate * pow(Self.bitrateStep, Double(substream - rated))
            return SimulcastLayer(substream: substream, width: width, height: height, bitrate: bitrate)
        }
    }

    private static func scaled(_ length: Int, steps: Int) -> Int {
        steps >= 0 ? length / Int(pow(Double(sizeStep), Double(steps))) : length * Int(pow(Double(sizeStep), Double(-steps)))
    }
}
