extension VideoPlane {
    /// A plane described the way decoders hand them over (WebRTC's `RTCI420Buffer`: a data
    /// pointer, a stride, and the plane's width and height): `rows` rows of `rowBytes` bytes,
    /// `stride` apart from `base` on. Its length is what those rows occupy, the last one without
    /// padding, so nothing past the plane's last pixel is ever assumed readable.
    ///
    /// Nothing is checked here: a frame made of the plane checks it. A plane declared narrower or
    /// shorter than the frame needs is then too short (`planeTooShort`), a stride of zero or
    /// less is `strideTooSmall`.
    public init(base: UnsafeRawPointer, stride: Int, rows: Int, rowBytes: Int) {
        var count = 0
        if rows > 0, rowBytes > 0, stride > 0 {
            let (padded, overflow) = stride.multipliedReportingOverflow(by: rows - 1)
            let (total, overflowAgain) = padded.addingReportingOverflow(rowBytes)
            count = overflow || overflowAgain ? 0 : total
        }
        self.init(base: base, stride: stride, count: count)
    }
}
