import MRTDTesting
import MRTDTranscript

/// What the exchanges of one recorded read were for, classified by instruction byte and position:
/// the evidence behind the APDU targets (docs/performance.md).
struct APDUBreakdown {
    var select = 0
    var bac = 0
    var pace = 0
    var readBinary = 0
    var chipAuthentication = 0
    var activeAuthentication = 0
    var other = 0
    /// READ BINARY commands that carried DG2 (the one by short EF identifier 02 and the offset
    /// reads that continue it).
    var dg2ReadBinary = 0

    init(_ exchanges: [ScriptedTransport.Exchange]) {
        var inSecureMessaging = false
        var readingDG2 = false
        for exchange in exchanges {
            let command = exchange.command
            guard command.count >= 4 else { other += 1; continue }
            let secure = command[0] & 0x0C == 0x0C
            let ins = command[1], p1 = command[2]
            let isRead = ins == 0xB0 || ins == 0xB1
            if isRead && secure { inSecureMessaging = true }
            switch ins {
            case 0xA4: select += 1
            case 0x84, 0x82: bac += 1
            case 0xB0, 0xB1: readBinary += 1
            // MSE:Set AT / KAT and GENERAL AUTHENTICATE: PACE before the first secured read,
            // Chip Authentication after it.
            case 0x22, 0x86: if inSecureMessaging { chipAuthentication += 1 } else { pace += 1 }
            case 0x88: activeAuthentication += 1
            default: other += 1
            }
            if isRead {
                if ins == 0xB0 && p1 & 0x80 != 0 { readingDG2 = p1 & 0x1F == 0x02 }
                if readingDG2 { dg2ReadBinary += 1 }
            } else {
                readingDG2 = false
            }
        }
    }

    /// The APDUs that open the chip and read its files: everything but Chip and Active Authentication.
    var reading: Int { select + bac + pace + readBinary + other }

    var json: [String: Int] {
        ["select": select, "bac": bac, "pace": pace, "readBinary": readBinary,
         "chipAuthentication": chipAuthentication, "activeAuthentication": activeAuthentication,
         "other": other, "readingTotal": reading, "dg2ReadBinary": dg2ReadBinary]
    }
}
