import Calls
import SwiftUI
import UIKit
import VideoFrames

/// A subscriber's video (through its `videoRenderer`) with the stats overlay; the video view
/// is wired to Picture in Picture, which starts when the app goes to the background.
struct SubscriberTileView: View {
    let tile: SubscriberTile

    var body: some View {
        ZStack(alignment: .bottomLeading) {
            VideoCallViewRepresentable(subscriber: tile.subscriber).background(.black)
            VStack(alignment: .leading) {
                Text("condition \(tile.condition.rawValue)")
                Text("degradation \(tile.degradationSource.rawValue)")
                Text("\(Int(tile.bitrate / 1000)) kbit/s")
            }
            .font(.caption.monospacedDigit()).foregroundStyle(.white).padding(6)
            .background(.black.opacity(0.5))
        }
    }
}

/// Hosts the Picture-in-Picture source view and feeds it the subscriber's frames.
struct VideoCallViewRepresentable: UIViewRepresentable {
    let subscriber: CallSubscriber

    final class Coordinator {
        var pictureInPicture: VideoCallPictureInPicture?
        var renderer: PictureInPictureRenderer?
    }

    func makeCoordinator() -> Coordinator { Coordinator() }

    func makeUIView(context: Context) -> UIView {
        let container = UIView()
        let pictureInPicture = VideoCallPictureInPicture(sourceView: container)
        let renderer = PictureInPictureRenderer(feed: VideoCallFrameFeed(pictureInPicture: pictureInPicture))
        subscriber.videoRenderer = renderer
        context.coordinator.pictureInPicture = pictureInPicture   // both must stay alive
        context.coordinator.renderer = renderer
        return container
    }

    func updateUIView(_ uiView: UIView, context: Context) {}

    static func dismantleUIView(_ uiView: UIView, coordinator: Coordinator) {
        coordinator.renderer = nil
    }
}

/// The subscriber's renderer (the seed's custom `videoRender`): each frame becomes a sample
/// buffer for the display layer, on the renderer's queue.
final class PictureInPictureRenderer: VideoRenderer {
    private let feed: VideoCallFrameFeed

    init(feed: VideoCallFrameFeed) { self.feed = feed }

    func renderVideoFrame(_ frame: CallVideoFrame) {
        frame.frame.withFrame { feed.render($0) }
    }
}
