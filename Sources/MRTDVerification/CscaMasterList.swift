import SwiftASN1

/// A CSCA master list's content (Doc 9303-12 §9):
///
/// ```
/// CscaMasterList ::= SEQUENCE { version CscaMasterListVersion, certList SET OF Certificate }
/// CscaMasterListVersion ::= INTEGER { v0(0) }
/// ```
///
/// It travels as the eContent of a CMS SignedData with eContentType `id-icao-cscaMasterList`
/// (2.23.136.1.1.2), signed by a master list signer whose certificate chains to a CSCA.
struct CscaMasterList {
    var certificates: [Certificate]
    /// Entries that did not parse as certificates.
    var unparsable: Int

    init(content: [UInt8]) throws {
        let fields = try BER.parse(content).children(.sequence, "CscaMasterList")
        guard fields.count == 2, fields[0].identifier == .integer else {
            throw ASN1Error.invalidASN1Object(reason: "CscaMasterList")
        }
        var certificates: [Certificate] = []
        var unparsable = 0
        let list = try fields[1].children(.set, "certList")
        certificates.reserveCapacity(list.count)
        for node in list {
            if let certificate = try? Certificate(node: node) { certificates.append(certificate) } else { unparsable += 1 }
        }
        self.certificates = certificates
        self.unparsable = unparsable
    }
}
