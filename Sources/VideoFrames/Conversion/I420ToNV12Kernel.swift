/// The vector I420 → NV12 converter: luma rows copied, chroma interleaved 16 pairs at a time.
enum I420ToNV12Kernel {
    /// Converts chroma rows `chromaRows` and the luma rows they cover.
    static func convert(_ source: VideoFrame, _ destination: MutableVideoFrame, chromaRows: Range<Int>) {
        let width = source.width, chromaWidth = PixelFormat.chromaSize(width)
        let vectorWidth = chromaWidth & ~15
        for chromaRow in chromaRows {
            for row in (2 * chromaRow)..<min(2 * chromaRow + 2, source.height) {
                let from = source.plane0.bytes.baseAddress! + row * source.plane0.stride
                let to = destination.plane0.bytes.baseAddress! + row * destination.plane0.stride
                to.copyMemory(from: from, byteCount: width)
            }
            let u = source.plane1.bytes.baseAddress! + chromaRow * source.plane1.stride
            let v = source.plane2.bytes.baseAddress! + chromaRow * source.plane2.stride
            let uv = destination.plane1.bytes.baseAddress! + chromaRow * destination.plane1.stride
            var x = 0
            while x < vectorWidth {
                let (low, high) = interleaveBytes(u.loadUnaligned(fromByteOffset: x, as: UInt8x16.self), v.loadUnaligned(fromByteOffset: x, as: UInt8x16.self))
                uv.storeBytes(of: low, toByteOffset: 2 &* x, as: UInt8x16.self)
                uv.storeBytes(of: high, toByteOffset: 2 &* x &+ 16, as: UInt8x16.self)
                x &+= 16
            }
            for x in vectorWidth..<chromaWidth {
                uv.storeBytes(of: u.load(fromByteOffset: x, as: UInt8.self), toByteOffset: 2 * x, as: UInt8.self)
                uv.storeBytes(of: v.load(fromByteOffset: x, as: UInt8.self), toByteOffset: 2 * x + 1, as: UInt8.self)
            }
        }
    }
}
