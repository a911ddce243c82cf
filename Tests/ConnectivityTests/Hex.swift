/// Bytes from hex as RFCs print it (spaces and line breaks ignored).
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter(\.isHexDigit)
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// Lower-case hex of `bytes`.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
