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
struct CscaMasterList: BERReadable {
    var certificates: [Certificate]
    /// Entries that did not parse as certificates.
    var unparsable: Int

    init(content: [UInt8]) throws {
        try self.init(berEncoded: BER.parse(content))
    }

    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        (certificates, unparsable) = try BER.sequence(rootNode, identifier: identifier) { nodes in
            _ = try nodes.required("version", identifier: .integer)
            return try BER.set(nodes.required("certList"), identifier: .set) { entries in
                var certificates: [Certificate] = []
                var unparsable = 0
                while let node = entries.next() {
                    if let certificate = try? Certificate(berEncoded: node) { certificates.append(certificate) } else { unparsable += 1 }
                }
                return (certificates, unparsable)
            }
        }
    }
}
