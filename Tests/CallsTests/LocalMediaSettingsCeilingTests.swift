import Calls
import Testing

/// `LocalMediaSettings.connectionMaxAllocatedBitrate`: Σ of the encodings' `maxBitrate` plus the
/// audio's (64 kbit/s when it has none), by hand.
@Suite struct LocalMediaSettingsCeilingTests {
    static let cases: [(String, LocalMediaSettings, Double?)] = [
        ("three layers and audio", LocalMediaSettings(), 1_500_000 + 500_000 + 150_000 + 64_000),
        ("audio without a figure", LocalMediaSettings(audioMaxBitrate: nil), 1_500_000 + 500_000 + 150_000 + 64_000),
        ("audio at 32 k", LocalMediaSettings(audioMaxBitrate: 32_000), 2_150_000 + 32_000),
        ("no audio", LocalMediaSettings(audio: false), 2_150_000),
        ("audio only", LocalMediaSettings(video: false), 64_000),
        ("one layer without encodings: the engine's own ceiling, unknown", LocalMediaSettings(encodings: []), nil),
    ]

    @Test(arguments: cases.indices)
    func theCeilingIsTheSumOfTheMaximumBitrates(_ index: Int) {
        let (name, settings, expected) = Self.cases[index]
        #expect(settings.connectionMaxAllocatedBitrate == expected, "\(name)")
    }
}
