import Calls
@testable import CallsJanus
import RTCStats
import Testing

/// A subscriber handle's simulcast switch events (docs/spec/sessions.md §6: `{"videoroom":"event","mid",
/// "substream"}` / `"temporal"` when a layer switch takes effect) read into signaling events.
@Suite struct JanusForwardedLayerTests {
    static let handle = RouterHandleID("77")

    static func event(_ json: String) throws -> SignalingEvent? {
        JanusSignaling.forwardedLayer(try JSONParser.parse(json), handle: handle)
    }

    @Test func substreamAndTemporalSwitchesAreReadSeparately() throws {
        #expect(try Self.event(#"{"videoroom":"event","room":1234,"mid":"1","substream":1}"#)
                == .forwardedLayerChanged(Self.handle, mid: "1", substream: 1, temporal: nil))
        #expect(try Self.event(#"{"videoroom":"event","room":1234,"mid":"1","temporal":0}"#)
                == .forwardedLayerChanged(Self.handle, mid: "1", substream: nil, temporal: 0))
        #expect(try Self.event(#"{"videoroom":"event","mid":"1","substream":2,"temporal":2}"#)
                == .forwardedLayerChanged(Self.handle, mid: "1", substream: 2, temporal: 2))
    }

    @Test func otherEventsAndOutOfRangeLayersAreNoSwitch() throws {
        #expect(try Self.event(#"{"videoroom":"event","room":1234,"configured":"ok"}"#) == nil)
        #expect(try Self.event(#"{"videoroom":"updated","mid":"1","substream":1}"#) == nil)
        #expect(try Self.event(#"{"videoroom":"event","mid":"1","substream":7}"#) == nil)
        #expect(try Self.event(#"{"videoroom":"event","mid":"1","substream":1.5}"#) == nil)
        #expect(try Self.event(#"{"videoroom":"event","mid":"1","substream":"1"}"#) == nil)
    }
}
