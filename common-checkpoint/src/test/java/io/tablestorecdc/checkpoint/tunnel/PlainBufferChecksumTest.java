package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCrc8;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The records' CRC-8, which folds eight bytes and then the last few at once, against the SDK's
 * byte-by-byte {@link PlainBufferCrc8}: every length from 0 to 40 (so every tail of 0 to 7 bytes
 * after 0 to 5 full blocks), at several offsets, continued from every starting checksum.
 */
class PlainBufferChecksumTest {

    private static final long SEED = 20261207L;

    @Test
    void everyLengthOffsetAndStartGivesTheSdksChecksum() {
        Random random = new Random(SEED);
        byte[] bytes = new byte[64];
        int checked = 0;
        for (int round = 0; round < 8; round++) {
            random.nextBytes(bytes);
            for (int offset = 0; offset < 4; offset++) {
                for (int length = 0; length <= 40; length++) {
                    byte[] slice = Arrays.copyOfRange(bytes, offset, offset + length);
                    for (int start = 0; start < 256; start++) {
                        byte expected = PlainBufferCrc8.crc8Slow((byte) start, slice);
                        assertThat(PlainBufferRow.crc8(start, bytes, offset, length))
                                .as("length %d at offset %d from %d", length, offset, start)
                                .isEqualTo(expected);
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isEqualTo(8 * 4 * 41 * 256);
    }

    @Test
    void aChangedByteChangesTheChecksumWhereverItIs() {
        byte[] bytes = new byte[23];
        new Random(SEED).nextBytes(bytes);
        byte clean = PlainBufferRow.crc8(0, bytes, 0, bytes.length);
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] ^= 0x10;
            assertThat(PlainBufferRow.crc8(0, bytes, 0, bytes.length))
                    .as("byte %d", i)
                    .isNotEqualTo(clean);
            bytes[i] ^= 0x10;
        }
    }
}
