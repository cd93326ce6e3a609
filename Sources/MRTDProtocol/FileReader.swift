public import MRTDCore
import MRTDCrypto

/// Reads whole elementary files with as few READ BINARY commands as the chip and reader allow.
///
/// - The first read asks for as much as the link can carry (the whole file on an extended-length
///   link); the file's length is learnt from its TLV header, and later reads ask for exactly what is
///   left, capped by what the chip has accepted so far.
/// - Length errors adapt the cap and are remembered for the session (RELIABILITY TR-04, RB-01):
///   6700 steps down (a rejected "everything" Le first, then extended to short, then 223, 160, 128,
///   64, 32), 6Cxx uses the length the chip names, 6282 and 6B00 mark the end of the file.
/// - Offsets past 32767 use odd-INS READ BINARY (B1).
public final class FileReader {
    public struct Configuration: Sendable, Equatable {
        /// Use extended-length READ BINARY when the transport supports it.
        public var preferExtendedLength: Bool
        /// Largest file accepted, checked against the header before the body is read (TLV-03).
        public var maxFileSize: Int

        /// Start each file with READ BINARY by short EF identifier (P1 = 80 | SFI), which selects and
        /// reads in one command; chips that refuse it get SELECT for the rest of the session.
        public var useShortFileIdentifiers: Bool

        public init(preferExtendedLength: Bool = true, maxFileSize: Int = 1 << 20, useShortFileIdentifiers: Bool = true) {
            self.preferExtendedLength = preferExtendedLength
            self.maxFileSize = maxFileSize
            self.useShortFileIdentifiers = useShortFileIdentifiers
        }
    }

    /// The largest plain length a short protected response can carry with 3DES or AES is 223 (0xDF)
    /// in the most common reckoning; readers ask no more in short mode.
    public static let shortSecureReadLength = 0xDF
    /// Steps tried after a 6700 at or below the short cap.
    static let shortLadder = [0xDF, 0xA0, 0x80, 0x40, 0x20]
    /// Attempts at one offset before giving up (length negotiation must converge).
    static let maxAttemptsPerChunk = 8

    private let channel: ChipChannel
    public let configuration: Configuration
    /// Whether extended length is still believed to work.
    public private(set) var extendedLength: Bool
    /// Whether a first read may ask for "everything" (Le = 0000 extended / 00 short).
    private var mayAskForEverything = true
    /// Whether each file starts with its TLV header alone (``headerLength`` bytes), then asks for
    /// exactly the rest: for a chip that answers `6B00` to any READ BINARY whose Le runs past the
    /// end of the file, even at offset 0.
    public private(set) var headerFirst = false
    /// What a read of the header alone asks for: a tag of up to 2 bytes and a length of up to 5
    /// (JMRTD reads its first block of 8 bytes the same way); every LDS file is longer.
    static let headerLength = 8
    /// The largest plain length to request per command.
    public private(set) var readCap: Int
    /// Whether reads by short EF identifier still look supported.
    public private(set) var shortFileIdentifiers: Bool

    public init(channel: ChipChannel, configuration: Configuration = Configuration()) {
        self.channel = channel
        self.configuration = configuration
        extendedLength = configuration.preferExtendedLength && channel.capabilities.extendedLength
        shortFileIdentifiers = configuration.useShortFileIdentifiers
        readCap = 0
        readCap = linkCap()
    }

    /// The plain length the link carries per READ BINARY.
    private func linkCap() -> Int {
        let caps = channel.capabilities
        let sm = channel.secureMessaging
        let limit = min(caps.maxResponseLength, 65_538)
        if extendedLength {
            guard let sm else { return min(65_536, limit - 2) }
            return min(65_536, SecureMessaging.maxPlainLength(fitting: limit, blockSize: sm.cipher.blockSize))
        }
        // A reader profile may cap short answers below 256 bytes (docs/field-quirks.md).
        guard let sm else { return min(256, limit - 2) }
        return min(Self.shortSecureReadLength, SecureMessaging.maxPlainLength(fitting: limit, blockSize: sm.cipher.blockSize))
    }

    /// Reads `file` whole: by short EF identifier when the chip takes it, else SELECT then READ BINARY.
    ///
    /// - Throws: `ProtocolError.fileNotFound` (6A82), `.fileAccessDenied` (6982), `.fileTooLarge`,
    ///   `.fileTruncated`, `.malformedFile`, or what the channel throws.
    public func read(_ file: LDSFile) async throws -> [UInt8] {
        try await read(file, resumingFrom: [])
    }

    /// The bytes of the file whose read failed last, as far as they were read (each chunk checked by
    /// secure messaging before it was kept): where a recovered read resumes.
    public private(set) var interrupted: (file: LDSFile, bytes: [UInt8])?

    /// Reads `file` whole, continuing after `partial` (the file's first bytes, from an interrupted
    /// read): the file is selected and read from offset `partial.count`.
    public func read(_ file: LDSFile, resumingFrom partial: [UInt8]) async throws -> [UInt8] {
        interrupted = nil
        var notFoundByShortFileID = false
        if shortFileIdentifiers && partial.isEmpty {
            do {
                return try await readFile(file, shortFileID: file.shortFileID)
            } catch ProtocolError.commandFailed(_, let sw) {
                // 6A86 / 6A81 / 6D00 / 6B00 / 6986 and the like: no SFI on this chip.
                shortFileIdentifiers = false
                channel.noteAdjustment("\(file.name): READ BINARY by short EF identifier answered \(sw): using SELECT")
            } catch ProtocolError.fileNotFound {
                // Ambiguous with SFI: confirm with SELECT below.
                notFoundByShortFileID = true
            }
        }
        let sw = try await channel.selectFile(file)
        switch sw {
        case .success:
            if notFoundByShortFileID {
                // Not found by its short identifier, found by SELECT: a chip without SFI that says
                // so with 6A82 (in plain, under secure messaging, on some chips). SELECT from now on.
                shortFileIdentifiers = false
                channel.noteAdjustment("\(file.name): not found by short EF identifier (6A82), found by SELECT: using SELECT")
            }
        case .fileNotFound: throw ProtocolError.fileNotFound(file)
        case .securityStatusNotSatisfied: throw ProtocolError.fileAccessDenied(file, sw)
        default: throw ProtocolError.commandFailed("SELECT \(file.name)", sw)
        }
        return try await readFile(file, shortFileID: nil, resumingFrom: partial)
    }

    /// Reads the currently selected EF whole, or, given `shortFileID`, the EF it names (the first
    /// command selects it; ISO/IEC 7816-4 §11.3.3, P1 = 80 | SFI, offset in P2).
    func readFile(_ file: LDSFile, shortFileID: UInt8?, resumingFrom partial: [UInt8] = []) async throws -> [UInt8] {
        var data = partial
        do {
            return try await readFile(file, shortFileID: shortFileID, into: &data)
        } catch {
            interrupted = (file, data)
            throw error
        }
    }

    private func readFile(_ file: LDSFile, shortFileID: UInt8?, into data: inout [UInt8]) async throws -> [UInt8] {
        readCap = min(readCap, linkCap())
        var total: Int?
        // EF.SOD in BER indefinite length (`77 80`, seen on US passports; RELIABILITY TLV-04) has no
        // declared length: it is read until the chip reports the end, bounded by `maxFileSize`.
        var untilEndOfFile = false
        if file == .cvca {
            // EF.CVCA is not one TLV object: one or two CARs (`42`) then zero padding, 36 bytes
            // (BSI TR-03110-3 §A.6.2.1); the first object's length is not the file's.
            untilEndOfFile = true
        } else if data.count >= 2, let header = try? TLV.parseHeader(data) {
            // Resuming: the header was read before the interruption.
            if header.totalLength <= configuration.maxFileSize { total = header.totalLength }
        } else if data.count >= 2, file == .sod, data[1] == 0x80 {
            untilEndOfFile = true
        }
        var attempts = 0
        var nextExact: Int?
        while true {
            let remaining = total.map { $0 - data.count }
            // The first read of a file asks for everything the link carries: Le = 0000 on an extended
            // link ("all bytes up to 65536"), else the short cap; its header tells what is left.
            // A chip that stated its sizes (EF.ATR/INFO) is asked for no more than it sends.
            let sizedByChip = channel.chipLimits != nil
            let asksEverything = nextExact == nil && remaining == nil && mayAskForEverything && !sizedByChip
                && (extendedLength || (channel.secureMessaging == nil && readCap == 256))
            let length: Int
            if let exact = nextExact {
                length = exact
                nextExact = nil
            } else if asksEverything {
                length = extendedLength ? 65_536 : 256
            } else if let remaining {
                length = min(remaining, readCap)
            } else if headerFirst && !untilEndOfFile && data.count < Self.headerLength {
                length = Self.headerLength - data.count
            } else if sizedByChip {
                length = readCap
            } else {
                // Length unknown and "everything" refused: a short read learns the header first.
                length = min(readCap, Self.shortSecureReadLength)
            }
            let useExtended = extendedLength && (length > Self.shortSecureReadLength || channel.secureMessaging == nil && length > 256)
            attempts += 1
            guard attempts <= Self.maxAttemptsPerChunk else {
                throw ProtocolError.lengthNegotiationFailed(file)
            }
            let response: ResponseAPDU
            if let sfi = shortFileID, data.isEmpty {
                response = try await channel.readBinary(shortFileID: sfi, length: length, forceExtended: useExtended)
            } else {
                response = try await channel.readBinary(offset: data.count, length: length, forceExtended: useExtended)
            }
            let sw = response.statusWord
            var endOfFile = false
            if asksEverything && sw == .wrongParametersOffset {
                // NFCPassportReader#89: Le = 00 / 0000 refused with 6B00 while an explicit Le works:
                // ask explicitly from now on (255 at most on a short link, 65535 on an extended one).
                // This file goes on with its header alone, then exactly the rest: a chip that
                // refuses any Le past the end of the file gives both.
                mayAskForEverything = false
                readCap = min(readCap, extendedLength ? 65_535 : 255)
                nextExact = Self.headerLength
                channel.noteAdjustment("\(file.name): \(sw) at Le=\(length == 256 ? "00" : "0000"): explicit Le from now on (at most \(readCap))")
                channel.noteRecovery("maximumLeRefused", file: file, offset: data.count, detail: "\(sw) at Le=\(length): the header alone, then an explicit Le")
                continue
            }
            if sw == .wrongParametersOffset && response.data.isEmpty && total == nil && !untilEndOfFile
                && data.count < Self.headerLength && length > Self.headerLength - data.count {
                // 6B00 before the file's length is known: the chip refuses a Le past the end of the
                // file (ISO/IEC 7816-4 allows it to refuse a range it cannot serve). Each file from
                // now on starts with its header alone, then asks for exactly the rest.
                headerFirst = true
                channel.noteAdjustment("\(file.name): \(sw) at Le=\(length) before the length was known: the header alone (\(Self.headerLength) bytes) first, then exactly the rest, from now on")
                channel.noteRecovery("offsetBeyondEnd", file: file, offset: data.count, detail: "\(sw) at Le=\(length): asking for the header alone")
                continue
            }
            if shortFileID != nil, data.isEmpty, !Self.answersRead(sw) {
                // The chip did not take the short EF identifier (6B00, 6D00, 6A86, 6986, ...).
                throw ProtocolError.commandFailed("READ BINARY by short EF identifier", sw)
            }
            if sw == .success || sw == .endOfFileReached {
                endOfFile = sw == .endOfFileReached
            } else if sw.sw1 == 0x67 {
                try lowerCap(after: length, everything: asksEverything, file: file, offset: data.count)
                continue
            } else if sw.sw1 == 0x6C {
                let exact = sw.correctLe ?? 0
                guard exact > 0, exact < length else { throw ProtocolError.lengthNegotiationFailed(file) }
                if asksEverything {
                    // TR-03105-5.1 ISO7816_C_06: 6Cxx to "everything" (Le = 00 / 0000): ask once with the
                    // Le it names (asking for everything again met 6Cxx until the attempts ran out);
                    // the cap stays, as the next file may be longer.
                    nextExact = exact
                } else {
                    readCap = exact
                }
                channel.noteAdjustment("\(file.name): \(sw) at Le=\(length): using \(exact)")
                channel.noteRecovery("exactLength", file: file, offset: data.count, detail: "\(sw) at Le=\(length): repeated with Le=\(exact)")
                continue
            } else if sw == .wrongParametersOffset {
                endOfFile = true
                channel.noteRecovery("offsetBeyondEnd", file: file, offset: data.count, detail: "\(sw) taken as the end of the file")
            } else if sw == .securityStatusNotSatisfied {
                throw ProtocolError.fileAccessDenied(file, sw)
            } else if sw == .fileNotFound {
                throw ProtocolError.fileNotFound(file)
            } else {
                throw ProtocolError.commandFailed("READ BINARY \(file.name)", sw)
            }
            attempts = 0
            channel.noteRead(bytes: response.data.count, extended: useExtended)
            data += response.data
            if total == nil, !untilEndOfFile, data.count >= 2 {
                do {
                    let header = try TLV.parseHeader(data)
                    guard header.totalLength <= configuration.maxFileSize else {
                        throw ProtocolError.fileTooLarge(file, declared: header.totalLength,
                                                         limit: configuration.maxFileSize)
                    }
                    total = header.totalLength
                } catch let error as TLVError {
                    // A header cut off by a tiny first read is completed by the next read.
                    if case .truncated = error, !endOfFile, data.count < 8 {
                    } else if error == .indefiniteLength, file == .sod {
                        untilEndOfFile = true
                        channel.noteAdjustment("\(file.name): indefinite length: reading to the end of the file")
                    } else {
                        throw ProtocolError.malformedFile(file, error)
                    }
                }
            }
            if untilEndOfFile {
                if endOfFile || response.data.count < length {
                    channel.noteFile(bytes: data.count)
                    return data
                }
                guard data.count < configuration.maxFileSize else {
                    throw ProtocolError.fileTooLarge(file, declared: data.count, limit: configuration.maxFileSize)
                }
                continue
            }
            if let total, data.count >= total {
                if data.count > total { data.removeLast(data.count - total) }
                channel.noteFile(bytes: total)
                return data
            }
            if endOfFile || response.data.isEmpty {
                if response.data.isEmpty && !endOfFile && sw == .success {
                    throw ProtocolError.noProgress(file)
                }
                throw ProtocolError.fileTruncated(file, expected: total ?? data.count + 1, received: data.count)
            }
        }
    }

    /// Whether `sw` is an answer to READ BINARY of an existing (or absent, or protected) EF, as
    /// opposed to a refusal of the command's form.
    static func answersRead(_ sw: StatusWord) -> Bool {
        sw == .success || sw == .endOfFileReached || sw.sw1 == 0x67 || sw.sw1 == 0x6C
            || sw == .securityStatusNotSatisfied || sw == .fileNotFound
    }

    /// Reacts to 6700 (wrong length).
    private func lowerCap(after length: Int, everything: Bool, file: LDSFile, offset: Int) throws {
        let before = readCap
        if everything {
            // The chip wants an explicit Le: learn the header with a short read, then ask exactly.
            mayAskForEverything = false
        } else if length > Self.shortSecureReadLength {
            // Explicit extended length refused: the chip (or reader) is short-only after all.
            extendedLength = false
            readCap = min(linkCap(), Self.shortSecureReadLength)
        } else if let next = Self.shortLadder.first(where: { $0 < length }) {
            readCap = next
        } else {
            throw ProtocolError.lengthNegotiationFailed(file)
        }
        channel.noteAdjustment("\(file.name): 6700 at Le=\(length): next Le \(readCap) (was \(before))")
        channel.noteRecovery("wrongLength", file: file, offset: offset, detail: "6700 at Le=\(length): next Le \(everything ? "explicit" : String(readCap))")
    }
}
