import Encoding
import Testing

struct EncoderSettingsTests {
    /// One core keeps up with a 1080p screen at 30 fps; larger or faster pictures get two.
    @Test func threads_oneUpTo1080pAt30_twoAbove() {
        #expect(EncoderSettings(width: 1920, height: 1080, fps: 30, bitrate: 4_000_000).threads == 1)
        #expect(EncoderSettings(width: 1280, height: 720, fps: 30, bitrate: 1_500_000).threads == 1)
        #expect(EncoderSettings(width: 2560, height: 1440, fps: 30, bitrate: 4_000_000).threads == 2)
        #expect(EncoderSettings(width: 3840, height: 2160, fps: 15, bitrate: 4_000_000).threads == 2)
        #expect(EncoderSettings(width: 1920, height: 1080, fps: 30, bitrate: 4_000_000, threads: 2).threads == 2)
    }
}
