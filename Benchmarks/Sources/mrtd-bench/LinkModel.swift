import MRTDTesting
import MRTDTranscript

/// The time on the air that a session's exchanges imply under ISO/IEC 14443: the physical floor a
/// real tap cannot beat (docs/performance.md states the model and its constants).
struct LinkModel {
    /// Bytes of one ISO/IEC 14443-4 block the chip and reader accept (FSC = FSD = 256), of which
    /// PCB (1) and CRC (2) are overhead.
    var frameSize = 256
    /// Bits on the air per byte: start bit, 8 data bits, stop bit (type B; type A's 9 bits and its
    /// SOF/EOF come to about the same).
    var bitsPerByte = 10.0
    /// Start and end of frame, counted as bytes.
    var framingBytes = 2.0
    /// Frame delay time: the turnaround between one frame and the next, seconds (≈ 1172/fc at
    /// 106 kbit/s, rounded up).
    var frameDelay = 100e-6
    /// Chip processing per APDU, seconds: the smallest time a chip takes to compute a secure
    /// messaging response (a stated constant, not a measurement).
    var chipPerAPDU = 1e-3

    private var infPerFrame: Int { frameSize - 3 }

    private func frames(for bytes: Int) -> Int { max(1, (bytes + infPerFrame - 1) / infPerFrame) }

    private func frameSeconds(_ infBytes: Int, bitrate: Double) -> Double {
        (Double(infBytes + 3) + framingBytes) * bitsPerByte / bitrate + frameDelay
    }

    /// Seconds for one command/response pair, chaining acknowledgements (R-blocks) included.
    func seconds(command: Int, response: Int, bitrate: Double) -> Double {
        var total = chipPerAPDU
        for (bytes, count) in [(command, frames(for: command)), (response, frames(for: response))] {
            var left = bytes
            for _ in 0..<count {
                let chunk = min(left, infPerFrame)
                total += frameSeconds(chunk, bitrate: bitrate)
                left -= chunk
            }
            // Each chained block is acknowledged by an R(ACK) block from the other side.
            total += Double(count - 1) * frameSeconds(0, bitrate: bitrate)
        }
        return total
    }

    func seconds(exchanges: [ScriptedTransport.Exchange], bitrate: Double) -> Double {
        exchanges.reduce(0) { $0 + seconds(command: $1.command.count, response: $1.response.count, bitrate: bitrate) }
    }
}
