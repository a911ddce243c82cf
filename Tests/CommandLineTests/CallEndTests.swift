@testable import callscope
import Foundation
import Testing

/// `CallEnd`: the wait of `callscope call`, and of `callscope probe`, which waits once per call
/// and between calls. (Real time: only lower bounds of sleeps are asserted, never how fast.)
@Suite struct CallEndTests {
    @Test func everyWaitLastsItsDurationNotOnlyTheFirst() async {
        let end = CallEnd(signals: [])
        defer { end.finish() }
        for _ in 0..<3 {
            let started = ContinuousClock.now
            #expect(await end.wait(seconds: 0.05) == .duration)
            #expect(ContinuousClock.now - started >= .milliseconds(50))
        }
    }

    @Test func aSignalEndsTheWaitUnderWayAndEveryLaterOne() async {
        let end = CallEnd(signals: [])
        defer { end.finish() }
        #expect(await end.wait(seconds: 0.01) == .duration)
        async let waiting = end.wait(seconds: 600)
        try? await Task.sleep(for: .milliseconds(20))
        end.fire(SIGTERM)
        #expect(await waiting == .signal(SIGTERM))
        #expect(await end.wait(seconds: 600) == .signal(SIGTERM))
        end.fire(SIGINT)                                    // the first signal is kept
        #expect(await end.wait(seconds: 600) == .signal(SIGTERM))
    }

    @Test func aSignalBeforeTheFirstWaitEndsItAtOnce() async {
        let end = CallEnd(signals: [])
        defer { end.finish() }
        end.fire(SIGINT)
        #expect(await end.wait(seconds: 600) == .signal(SIGINT))
    }
}
