/// Value noise, the marker clip's texture: per octave, values in -1...1 on a lattice `scale`
/// units apart, interpolated bilinearly with smoothstep weights, times the octave's amplitude,
/// summed over the octaves.
enum ValueNoise {
    /// A `width` x `height` plane of noise whose samples are `spacing` units apart.
    static func plane(width: Int, height: Int, spacing: Double, octaves: [(scale: Double, amplitude: Double)], seed: UInt64) -> [Double] {
        var plane = [Double](repeating: 0, count: width * height)
        for (octave, (scale, amplitude)) in octaves.enumerated() {
            let key = seed &* 0x100 &+ UInt64(octave)
            // Where each column and row falls on the lattice: its cell and the weight of the next.
            func axis(_ count: Int) -> (cells: [Int], weights: [Double]) {
                let positions = (0..<count).map { Double($0) * spacing / scale }
                let cells = positions.map { Int($0.rounded(.down)) }
                return (cells, zip(positions, cells).map { position, cell in
                    let t = position - Double(cell)
                    return t * t * (3 - 2 * t)
                })
            }
            let (columns, columnWeights) = axis(width), (rows, rowWeights) = axis(height)
            let latticeWidth = (columns.last ?? 0) + 2, latticeHeight = (rows.last ?? 0) + 2
            var lattice = [Double](repeating: 0, count: latticeWidth * latticeHeight)
            for y in 0..<latticeHeight { for x in 0..<latticeWidth { lattice[y * latticeWidth + x] = value(x, y, key) } }
            for y in 0..<height {
                let (top, ty) = (rows[y] * latticeWidth, rowWeights[y])
                let bottom = top + latticeWidth
                for x in 0..<width {
                    let (cell, tx) = (columns[x], columnWeights[x])
                    let upper = lattice[top + cell] * (1 - tx) + lattice[top + cell + 1] * tx
                    let lower = lattice[bottom + cell] * (1 - tx) + lattice[bottom + cell + 1] * tx
                    plane[y * width + x] += amplitude * (upper * (1 - ty) + lower * ty)
                }
            }
        }
        return plane
    }

    /// A value in -1...1 for lattice point (`x`, `y`): a 64-bit mix (SplitMix64's finaliser)
    /// of its coordinates and `key`.
    static func value(_ x: Int, _ y: Int, _ key: UInt64) -> Double {
        var z = UInt64(bitPattern: Int64(x)) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: Int64(y)) &* 0xC2B2_AE3D_27D4_EB4F ^ key &* 0x1656_67B1_9E37_79F9
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53) * 2 - 1
    }
}
