import Testing
@testable import VideoFrames

/// The portable half of the Picture-in-Picture path: which buffer a frame becomes, how it is
/// written, how the layer is turned for the frame's rotation, and the timestamps of frames
/// stamped in nanoseconds.
@Suite("Display path")
struct DisplayPathTests {
    // MARK: - The buffer plan

    @Test("the plan: BGRA by default, NV12 for YUV frames when preferred, BGRA frames copied", arguments: [
        (PixelFormat.i420, DisplayBufferPlan.Preference.bgra, PixelFormat.bgra, DisplayBufferPlan.Step.convert),
        (.nv12, .bgra, .bgra, .convert),
        (.bgra, .bgra, .bgra, .copy),
        (.i420, .nv12WhereAccepted, .nv12, .convert),
        (.nv12, .nv12WhereAccepted, .nv12, .copy),
        (.bgra, .nv12WhereAccepted, .bgra, .copy),
    ])
    func plan(source: PixelFormat, preference: DisplayBufferPlan.Preference, format: PixelFormat, step: DisplayBufferPlan.Step) {
        let plan = DisplayBufferPlan(source: source, preference: preference)
        #expect(plan.format == format)
        #expect(plan.step == step)
        if plan.step == .convert { #expect(FrameConverter.supports(from: source, to: plan.format)) }
    }

    @Test("I420 into an NV12 buffer with padded rows: Y rows as they are, U and V interleaved, padding untouched")
    func i420IntoNV12() throws {
        // 3x3: chroma is 2x2. Samples chosen by hand.
        var source = TestFrame(.i420, width: 3, height: 3)
        source.planes = [[10, 11, 12, 20, 21, 22, 30, 31, 32], [100, 101, 110, 111], [200, 201, 210, 211]]
        var destination = TestFrame(.nv12, width: 3, height: 3, padding: 5, fill: 0xEE)
        let plan = DisplayBufferPlan(source: .i420, preference: .nv12WhereAccepted)
        try source.withFrame { frame in try destination.withMutableFrame { try plan.write(frame, into: $0, converter: FrameConverter()) } }
        let pad = [UInt8](repeating: 0xEE, count: 5)
        #expect(destination.planes[0] == [10, 11, 12] + pad + [20, 21, 22] + pad + [30, 31, 32] + pad)
        #expect(destination.planes[1] == [100, 200, 101, 201] + pad + [110, 210, 111, 211] + pad)
    }

    @Test("copies keep every pixel row and leave the destination's padding alone", arguments: [PixelFormat.nv12, .bgra])
    func copy(format: PixelFormat) throws {
        var rng = SplitMix64(seed: 0x0D15_9A7)
        let source = TestFrame.random(format, width: 37, height: 21, padding: 3, using: &rng)
        var destination = TestFrame(format, width: 37, height: 21, padding: 11, fill: 0x5A)
        let plan = DisplayBufferPlan(source: format, preference: .nv12WhereAccepted)
        #expect(plan.step == .copy)
        try source.withFrame { frame in try destination.withMutableFrame { try plan.write(frame, into: $0, converter: FrameConverter()) } }
        for plane in 0..<format.planeCount {
            let rowBytes = format.rowBytes(plane: plane, width: 37)
            for row in 0..<format.rows(plane: plane, height: 21) {
                let expected = source.planes[plane][(row * source.strides[plane])..<(row * source.strides[plane] + rowBytes)]
                let written = destination.planes[plane][(row * destination.strides[plane])...].prefix(destination.strides[plane])
                #expect(Array(written.prefix(rowBytes)) == Array(expected))
                #expect(written.dropFirst(rowBytes).allSatisfy { $0 == 0x5A })
            }
        }
    }

    @Test("a destination of another format or size is an error, not a write")
    func mismatch() throws {
        let source = TestFrame.flat(width: 8, height: 8, y: 16, u: 128, v: 128)
        var bgra = TestFrame(.bgra, width: 8, height: 8, fill: 7)
        let plan = DisplayBufferPlan(source: .i420, preference: .nv12WhereAccepted)
        #expect(throws: VideoFrameError.self) {
            try source.withFrame { frame in try bgra.withMutableFrame { try plan.write(frame, into: $0, converter: FrameConverter()) } }
        }
        #expect(bgra.planes[0].allSatisfy { $0 == 7 })
        var small = TestFrame(.nv12, width: 6, height: 8)
        let copy = DisplayBufferPlan(source: .nv12, preference: .nv12WhereAccepted)
        let nv12 = TestFrame(.nv12, width: 8, height: 8)
        do {
            try nv12.withFrame { frame in try small.withMutableFrame { try copy.write(frame, into: $0, converter: FrameConverter()) } }
            Issue.record("a smaller destination was accepted")
        } catch let error as VideoFrameError {
            #expect(error.code == .sizeMismatch)
        }
    }

    // MARK: - Rotation

    /// Applies the layout's matrix to a point given relative to the layer's centre, then moves
    /// it to the layer's position: where that point of the picture lands in the container.
    private func place(_ x: Double, _ y: Double, _ layout: RotatedLayerLayout) -> (x: Double, y: Double) {
        (Double(layout.a) * x + Double(layout.c) * y + layout.centerX, Double(layout.b) * x + Double(layout.d) * y + layout.centerY)
    }

    @Test("a frame needing 90° clockwise: the picture's top-left corner lands top-right, and the turned layer covers the container exactly")
    func clockwise90() {
        let layout = RotatedLayerLayout(rotation: .clockwise90, containerWidth: 300, containerHeight: 200)
        #expect(layout.boundsWidth == 200 && layout.boundsHeight == 300)
        let (halfWidth, halfHeight) = (layout.boundsWidth / 2, layout.boundsHeight / 2)
        let topLeft = place(-halfWidth, -halfHeight, layout)
        #expect(topLeft.x == 300 && topLeft.y == 0)
        let bottomRight = place(halfWidth, halfHeight, layout)
        #expect(bottomRight.x == 0 && bottomRight.y == 200)
    }

    @Test("every rotation: the picture's top-left corner lands where turning it clockwise puts it, and the layer fills the container", arguments: [
        (VideoRotation.none, 0.0, 0.0),
        (.clockwise90, 300.0, 0.0),
        (.clockwise180, 300.0, 200.0),
        (.clockwise270, 0.0, 200.0),
    ])
    func corners(rotation: VideoRotation, expectedX: Double, expectedY: Double) {
        let layout = RotatedLayerLayout(rotation: rotation, containerWidth: 300, containerHeight: 200)
        let (w, h) = (layout.boundsWidth / 2, layout.boundsHeight / 2)
        let corners = [place(-w, -h, layout), place(w, -h, layout), place(-w, h, layout), place(w, h, layout)]
        #expect(corners[0].x == expectedX && corners[0].y == expectedY)
        #expect(corners.map(\.x).min() == 0 && corners.map(\.x).max() == 300)
        #expect(corners.map(\.y).min() == 0 && corners.map(\.y).max() == 200)
        #expect(layout.a * layout.d - layout.b * layout.c == 1)   // a rotation: no mirror, no scale
    }

    @Test("the displayed size swaps for quarter turns", arguments: VideoRotation.allCases)
    func displayedSize(rotation: VideoRotation) {
        let size = rotation.displayedSize(width: 960, height: 540)
        let quarter = rotation == .clockwise90 || rotation == .clockwise270
        #expect(size.width == (quarter ? 540 : 960) && size.height == (quarter ? 960 : 540))
    }

    // MARK: - Timestamps in nanoseconds

    /// (nanoseconds, ticks) by hand: floor(ns · 9 / 100 000) modulo 2³².
    static let nanosecondCases: [(Int64, UInt32)] = [
        (0, 0),
        (1_000_000_000, 90_000),
        (33_333_333, 2_999),                 // 2 999.99997 ticks
        (11_111, 0),                         // 0.99999 ticks
        (11_112, 1),                         // 1.00008 ticks
        // 2³² + 5 = 4 294 967 301 = 9 · 477 218 589 ticks: 477 218 589 · 100 000 ns.
        (47_721_858_900_000, 5),
        (-1, 4_294_967_295),                 // floor(-0.00009) = -1
        (-1_000_000_000, 4_294_877_296),     // 2³² - 90 000
    ]

    @Test("nanoseconds to 90 kHz ticks: floor(ns · 9 / 100 000), modulo 2³²", arguments: nanosecondCases)
    func nanoseconds(nanoseconds: Int64, ticks: UInt32) {
        #expect(PresentationClock.timestamp(nanoseconds: nanoseconds) == ticks)
    }

    /// (frames per second, presentation times by hand).
    static let timelineCases: [(Int64, [Int64])] = [
        // 25 fps: 40 ms = 3 600 ticks exactly.
        (25, [0, 3_600, 7_200, 10_800]),
        // 30 fps, k · 10⁹ / 30 ns rounded down: 33 333 333, 66 666 666, 100 000 000 ns are
        // 2 999.99997, 5 999.99994 and 9 000 ticks after the first, rounded down.
        (30, [0, 2_999, 5_999, 9_000]),
    ]

    @Test("frames stamped in nanoseconds become regular presentation times at 90 kHz", arguments: timelineCases)
    func nanosecondTimeline(framesPerSecond: Int64, expected: [Int64]) {
        var clock = PresentationClock()
        let start: Int64 = 5_000_000_000_000   // any capture-clock origin (a whole number of ticks)
        let times = (0..<4).map { k in
            clock.presentationTime(for: PresentationClock.timestamp(nanoseconds: start + Int64(k) * 1_000_000_000 / framesPerSecond))
        }
        #expect(times.map(\.value) == expected)
        #expect(times.dropFirst().allSatisfy { $0.kind == .regular })
    }
}
