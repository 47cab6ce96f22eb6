package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrimaryKeyOrderTest {

    private static PrimaryKey key(PrimaryKeyValue... values) {
        PrimaryKeyBuilder builder = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (int i = 0; i < values.length; i++) {
            builder.addPrimaryKeyColumn("c" + i, values[i]);
        }
        return builder.build();
    }

    private static PrimaryKeyValue s(String v) {
        return PrimaryKeyValue.fromString(v);
    }

    private static PrimaryKeyValue i(long v) {
        return PrimaryKeyValue.fromLong(v);
    }

    private static PrimaryKeyValue b(int... bytes) {
        byte[] out = new byte[bytes.length];
        for (int k = 0; k < bytes.length; k++) {
            out[k] = (byte) bytes[k];
        }
        return PrimaryKeyValue.fromBinary(out);
    }

    @Test
    void integersOrderNumericallyIncludingNegatives() {
        assertThat(PrimaryKeyOrder.compareValues(i(-5), i(3))).isNegative();
        assertThat(PrimaryKeyOrder.compareValues(i(Long.MIN_VALUE), i(Long.MAX_VALUE)))
                .isNegative();
        assertThat(PrimaryKeyOrder.compareValues(i(7), i(7))).isZero();
    }

    @Test
    void stringsOrderByUnsignedUtf8Bytes() {
        assertThat(PrimaryKeyOrder.compareValues(s("B"), s("a"))).isNegative();
        assertThat(PrimaryKeyOrder.compareValues(s("a"), s("aa"))).isNegative();
        assertThat(PrimaryKeyOrder.compareValues(s("z"), s("é"))).isNegative();
        // U+FFFD (EF BF BD) sorts before U+1F600 (F0 9F 98 80) bytewise but after it in UTF-16.
        assertThat(PrimaryKeyOrder.compareValues(s("\uFFFD"), s("\uD83D\uDE00"))).isNegative();
    }

    @Test
    void binariesOrderByUnsignedBytes() {
        assertThat(PrimaryKeyOrder.compareValues(b(0x01), b(0xff))).isNegative();
        assertThat(PrimaryKeyOrder.compareValues(b(0x7f), b(0x80))).isNegative();
        assertThat(PrimaryKeyOrder.compareValues(b(), b(0x00))).isNegative();
    }

    @Test
    void infMinAndInfMaxBoundEveryValue() {
        for (PrimaryKeyValue v : List.of(i(Long.MIN_VALUE), s(""), b())) {
            assertThat(PrimaryKeyOrder.compareValues(PrimaryKeyValue.INF_MIN, v)).isNegative();
            assertThat(PrimaryKeyOrder.compareValues(PrimaryKeyValue.INF_MAX, v)).isPositive();
        }
        assertThat(PrimaryKeyOrder.compareValues(PrimaryKeyValue.INF_MIN, PrimaryKeyValue.INF_MIN))
                .isZero();
        assertThat(PrimaryKeyOrder.compareValues(PrimaryKeyValue.INF_MIN, PrimaryKeyValue.INF_MAX))
                .isNegative();
    }

    @Test
    void keysCompareColumnByColumn() {
        List<PrimaryKey> expected =
                List.of(
                        key(s("a"), PrimaryKeyValue.INF_MIN),
                        key(s("a"), i(-1)),
                        key(s("a"), i(2)),
                        key(s("a"), PrimaryKeyValue.INF_MAX),
                        key(s("b"), i(-100)),
                        key(PrimaryKeyValue.INF_MAX, PrimaryKeyValue.INF_MIN));
        List<PrimaryKey> shuffled = new ArrayList<>(expected);
        Collections.shuffle(shuffled, new Random(42));

        shuffled.sort(PrimaryKeyOrder.INSTANCE);

        assertThat(shuffled).isEqualTo(expected);
    }
}
