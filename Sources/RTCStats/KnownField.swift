/// The W3C fields the engine reads, numbered so an entry can find them without comparing
/// strings. Every other field is still kept (and found by name); this is only an index.
@usableFromInline package enum KnownField: UInt8, CaseIterable, Sendable {
    case kind = 1, mediaType, ssrc, mid, rid, codecId, transportId, trackIdentifier, trackId
    case bytesSent, headerBytesSent, bytesReceived, headerBytesReceived, packetsSent, packetsReceived, packetsLost
    case frameWidth, frameHeight, framesPerSecond, framesEncoded, framesDecoded, framesReceived
    case localId, roundTripTime, jitter, fractionLost, mimeType
    case selectedCandidatePairId, availableOutgoingBitrate, availableIncomingBitrate, currentRoundTripTime
    case active, qualityLimitationReason, qualityLimitationResolutionChanges, scalabilityMode, targetBitrate
    case freezeCount, totalFreezesDuration, pauseCount, totalPausesDuration
    case selected, nominated, state, streamIdentifier, trackIds
    /// The members every entry has; the parser recognises them but they are never in `fields`.
    case id, type, timestamp

    /// The W3C name.
    package var name: String { String(describing: self) }

    /// The known field called `name`, if any.
    package init?(name: String) {
        guard let field = KnownField.byName[name] else { return nil }
        self = field
    }

    private static let byName: [String: KnownField] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
}

/// Where each ``KnownField`` sits in an entry's `fields` (position + 1; 0 = absent). 64 bytes,
/// stored inline in the entry.
@usableFromInline package struct KnownFieldIndex: Sendable, Hashable {
    private var slots = SIMD64<UInt8>(repeating: 0)

    /// An empty index.
    package init() {}

    /// Records that `field` is at `position` (positions past 254 are left to the name lookup).
    @inlinable package mutating func record(_ field: KnownField, at position: Int) {
        if position < 255 { setSlot(Int(field.rawValue), UInt8(position + 1)) }
    }

    @usableFromInline mutating func setSlot(_ slot: Int, _ value: UInt8) { slots[slot] = value }

    /// The position of `field`, if present.
    @inlinable package func position(of field: KnownField) -> Int? {
        let slot = slot(Int(field.rawValue))
        return slot == 0 ? nil : Int(slot) - 1
    }

    @usableFromInline func slot(_ index: Int) -> UInt8 { slots[index] }
}
