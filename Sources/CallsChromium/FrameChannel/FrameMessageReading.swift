import VideoFrames

/// Reads one frame message from a WebSocket connection: the header, then the planes straight
/// into the memory of the frame that is handed on (no copy when the page sent packed planes,
/// which it does), and checks that the message holds exactly the planes the header announces.
enum FrameMessageReading {
    enum Outcome {
        case frame(FrameChannelServer.Frame)
        case rejected(FrameChannelServer.Rejection)
    }

    static func read(from messages: WebSocketMessageReader) throws(WebSocketMessageReader.Failure) -> Outcome {
        guard try messages.nextMessage() else {
            let skipped = try messages.skipRestOfMessage()
            return .rejected(.init(reason: "a text message of \(skipped) bytes on the frame channel"))
        }
        var headerBytes = [UInt8](repeating: 0, count: FrameMessageHeader.size)
        let got = try readPiece(of: messages, into: &headerBytes)
        let parsed = headerBytes.withUnsafeBytes { bytes in
            let present = UnsafeRawBufferPointer(rebasing: bytes[0..<got])
            return (FrameMessageHeader.route(present), Result { () throws(FrameChannelRejection) in try FrameMessageHeader(present) })
        }
        let header: FrameMessageHeader
        switch parsed.1 {
        case .success(let value):
            header = value
        case .failure(let rejection):
            _ = try messages.skipRestOfMessage()
            return .rejected(.init(sinkID: parsed.0?.sinkID, source: parsed.0?.source, reason: rejection.description))
        }
        func rejected(_ reason: String) -> Outcome {
            .rejected(.init(sinkID: header.sinkID, source: header.source, reason: reason))
        }
        let expected = header.planeByteCount
        var received = 0
        var failure: WebSocketMessageReader.Failure?
        let planes = [UInt8](unsafeUninitializedCapacity: expected) { storage, initialized in
            switch Result(catching: { () throws(WebSocketMessageReader.Failure) in try messages.read(into: UnsafeMutableRawBufferPointer(storage)) }) {
            case .success(let count): received = count
            case .failure(let error): failure = error
            }
            if received < expected { storage.baseAddress?.advanced(by: received).initialize(repeating: 0, count: expected - received) }
            initialized = expected
        }
        if let failure { throw failure }
        guard received == expected else {
            return rejected("truncated planes: \(received) of \(expected) bytes for \(header.format) \(header.width)x\(header.height)")
        }
        let trailing = try messages.skipRestOfMessage()
        guard trailing == 0 else {
            return rejected("\(trailing) bytes after the planes of \(header.format) \(header.width)x\(header.height)")
        }
        let timestamp = header.hasDecoderRTPTimestamp
            ? header.rtpTimestamp : UInt32(truncatingIfNeeded: header.timestampMicroseconds &* 9 / 100)
        let made = Result { () throws -> VideoFrameBuffer in
            header.isPacked
                ? try VideoFrameBuffer(format: header.format, width: header.width, height: header.height, packed: planes, timestamp: timestamp)
                : try repacked(planes, header, timestamp: timestamp)
        }
        switch made {
        case .success(let buffer):
            return .frame(.init(sinkID: header.sinkID, source: header.source, buffer: buffer, timestampMicroseconds: header.timestampMicroseconds))
        case .failure(let error):
            return rejected("\(error)")
        }
    }

    private static func readPiece(of messages: WebSocketMessageReader, into bytes: inout [UInt8]) throws(WebSocketMessageReader.Failure) -> Int {
        var result: Result<Int, WebSocketMessageReader.Failure> = .success(0)
        bytes.withUnsafeMutableBytes { raw in
            result = Result { () throws(WebSocketMessageReader.Failure) in try messages.read(into: raw) }
        }
        return try result.get()
    }

    /// A packed frame from planes whose rows are padded (strides longer than the rows).
    private static func repacked(_ planes: [UInt8], _ header: FrameMessageHeader, timestamp: UInt32) throws -> VideoFrameBuffer {
        var buffer = try VideoFrameBuffer(format: header.format, width: header.width, height: header.height, timestamp: timestamp)
        let format = header.format
        let offsets = (0..<format.planeCount).map { plane in
            (0..<plane).reduce(0) { $0 + header.strides[$1] * format.rows(plane: $1, height: header.height) }
        }
        let destinations = (0..<format.planeCount).map { (buffer.planeOffset($0), buffer.stride($0)) }
        buffer.withUnsafeMutableBytes { destination in
            planes.withUnsafeBytes { source in
                for plane in 0..<format.planeCount {
                    let row = format.rowBytes(plane: plane, width: header.width)
                    for line in 0..<format.rows(plane: plane, height: header.height) {
                        let from = offsets[plane] + line * header.strides[plane]
                        let to = destinations[plane].0 + line * destinations[plane].1
                        destination.baseAddress!.advanced(by: to).copyMemory(from: source.baseAddress!.advanced(by: from), byteCount: row)
                    }
                }
            }
        }
        return buffer
    }
}
