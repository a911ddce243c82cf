import Testing
import VideoFrames

/// A frame kept alive with its memory (issue 22 item 1): over owned bytes, or over an engine's
/// buffer without a copy.
@Suite("Retained frames")
struct RetainedVideoFrameTests {
    /// Plane memory owned by an object, as an engine's `RTCI420Buffer` owns its planes.
    final class EngineBuffer {
        let memory: UnsafeMutableRawBufferPointer
        init(count: Int) {
            memory = .allocate(byteCount: count, alignment: 16)
            for index in 0..<count { memory[index] = UInt8(truncatingIfNeeded: index) }
        }
        deinit { memory.deallocate() }
    }

    /// 6x4 I420 with a Y stride of 8: Y 8*4 = 32 bytes, U and V 3x2 = 6 bytes each.
    static func wrap(_ buffer: EngineBuffer) throws -> RetainedVideoFrame {
        let base = UnsafeRawPointer(buffer.memory.baseAddress!)
        let frame = try VideoFrame.i420(y: VideoPlane(base: base, stride: 8, count: 32), u: VideoPlane(base: base + 32, stride: 3, count: 6),
                                        v: VideoPlane(base: base + 38, stride: 3, count: 6), width: 6, height: 4,
                                        timestamp: 9_000, rotation: .clockwise90)
        return RetainedVideoFrame(frame: frame, owner: buffer)
    }

    @Test("wrapping an engine's planes copies nothing: the planes are the owner's memory")
    func zeroCopy() throws {
        let buffer = EngineBuffer(count: 44)
        let retained = try Self.wrap(buffer)
        let start = UnsafeRawPointer(buffer.memory.baseAddress!)
        retained.withFrame { frame in
            #expect(frame.plane(0).bytes.baseAddress == start)
            #expect(frame.plane(1).bytes.baseAddress == start + 32)
            #expect(frame.plane(2).bytes.baseAddress == start + 38)
            #expect(frame.plane(0).stride == 8)
        }
        #expect(retained.format == .i420 && retained.width == 6 && retained.height == 4)
        #expect(retained.timestamp == 9_000 && retained.rotation == .clockwise90)
    }

    @Test("the owner lives as long as a copy of the frame does")
    func ownerLifetime() throws {
        weak var owner: EngineBuffer?
        var copy: RetainedVideoFrame?
        do {
            let buffer = EngineBuffer(count: 44)
            owner = buffer
            copy = try Self.wrap(buffer)
        }
        #expect(owner != nil)
        // Row 1 of Y starts at byte 8 (stride 8): its first value is 8.
        #expect(copy?.withFrame { $0.plane(0).bytes[8] } == 8)
        copy = nil
        #expect(owner == nil)
    }

    @Test("over owned bytes: the buffer's geometry and pixels")
    func owned() throws {
        // 3x3 I420 packed: Y 9 bytes, U and V 2x2 = 4 bytes each, 17 in all.
        let packed = (0..<17).map { UInt8($0) }
        let retained = RetainedVideoFrame(try VideoFrameBuffer(format: .i420, width: 3, height: 3, packed: packed, timestamp: 3, rotation: .clockwise180))
        #expect(retained.width == 3 && retained.height == 3 && retained.timestamp == 3 && retained.rotation == .clockwise180)
        #expect(retained.withFrame { $0.packedBytes() } == packed)
    }
}
