import Testing
@testable import VideoFrames

/// Reuse of BGRA buffers.
@Suite("Pixel buffer pool")
struct PixelBufferPoolTests {
    @Test("recycled buffers are reused, and nothing is allocated in a steady stream")
    func reuse() throws {
        var pool = PixelBufferPool(maximumIdleBuffers: 2)
        let source = TestFrame.flat(width: 64, height: 32, y: 81, u: 90, v: 240)
        for _ in 0..<100 {
            var buffer = try pool.makeBuffer(width: 64, height: 32)
            try source.withFrame { frame in try buffer.withMutableFrame { try FrameConverter().convert(frame, into: $0) } }
            #expect(buffer.stride(0) % 64 == 0)
            pool.recycle(buffer)
        }
        #expect(pool.statistics == PixelBufferPool.Statistics(allocated: 1, reused: 99, discarded: 0))
    }

    @Test("at most the maximum waits idle")
    func bounded() throws {
        var pool = PixelBufferPool(maximumIdleBuffers: 2)
        let buffers = try (0..<4).map { _ in try pool.makeBuffer(width: 16, height: 16) }
        for buffer in buffers { pool.recycle(buffer) }
        #expect(pool.idleCount == 2)
        #expect(pool.statistics.allocated == 4 && pool.statistics.discarded == 2)
    }

    @Test("a new size drops the old buffers; foreign buffers are not kept")
    func sizeChange() throws {
        var pool = PixelBufferPool()
        pool.recycle(try pool.makeBuffer(width: 16, height: 16))
        #expect(pool.idleCount == 1)
        var buffer = try pool.makeBuffer(width: 32, height: 16)
        #expect(pool.idleCount == 0 && pool.statistics.discarded == 1)
        buffer.timestamp = 42
        pool.recycle(buffer)
        #expect(try pool.makeBuffer(width: 32, height: 16).timestamp == 0)
        pool.recycle(try VideoFrameBuffer(format: .i420, width: 32, height: 16))
        pool.recycle(try VideoFrameBuffer(format: .bgra, width: 8, height: 8))
        #expect(pool.idleCount == 0)
        pool.recycle(try pool.makeBuffer(width: 32, height: 16))
        pool.drain()
        #expect(pool.idleCount == 0)
        #expect(throws: VideoFrameError.self) { _ = try pool.makeBuffer(width: 0, height: 16) }
    }
}
