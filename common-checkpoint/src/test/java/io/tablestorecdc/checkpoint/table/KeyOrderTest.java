package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyBounds.Bound;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyOrderTest {

    // U+FF5E sorts before U+1F600 in UTF-8 (EF BD 9E < F0 9F 98 80), after it in UTF-16.
    private static final String BMP_HIGH = "\uFF5E";
    private static final String EMOJI = new String(Character.toChars(0x1F600));

    private static PrimaryKeyValue s(String v) {
        return PrimaryKeyValue.fromString(v);
    }

    private static PrimaryKey key(PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder().addPrimaryKeyColumn("id", value).build();
    }

    @Test
    void stringsOrderByTheirUtf8BytesAsTheServiceDoes() {
        assertThat(s(BMP_HIGH).compareTo(s(EMOJI))).as("the SDK's order").isPositive();
        assertThat(KeyOrder.compareValues(s(BMP_HIGH), s(EMOJI))).isNegative();
        assertThat(KeyOrder.compareValues(s("a"), s("ab"))).isNegative();
    }

    @Test
    void integersNumericallyBinaryUnsignedAndMarkersAtTheEnds() {
        assertThat(
                        KeyOrder.compareValues(
                                PrimaryKeyValue.fromLong(-5), PrimaryKeyValue.fromLong(3)))
                .isNegative();
        assertThat(
                        KeyOrder.compareValues(
                                PrimaryKeyValue.fromBinary(new byte[] {(byte) 0x80}),
                                PrimaryKeyValue.fromBinary(new byte[] {0x7f})))
                .isPositive();
        assertThat(KeyOrder.compareValues(PrimaryKeyValue.INF_MIN, s(""))).isNegative();
        assertThat(KeyOrder.compareValues(PrimaryKeyValue.INF_MAX, s(EMOJI))).isPositive();
        assertThat(KeyOrder.compareValues(PrimaryKeyValue.INF_MAX, PrimaryKeyValue.INF_MAX))
                .isZero();
        assertThatThrownBy(() -> KeyOrder.compareValues(s("a"), PrimaryKeyValue.fromLong(1)))
                .hasMessageContaining("STRING key value against a INTEGER");
    }

    @Test
    void restrictingSplitsKeepsTheRowsBeyondTheBasicPlane() {
        List<PrimaryKeySchema> schema = List.of(new PrimaryKeySchema("id", PrimaryKeyType.STRING));
        // Split [INF_MIN, EMOJI) then [EMOJI, INF_MAX); bounds id >= BMP_HIGH.
        List<KeyRange> splits =
                List.of(
                        new KeyRange(key(PrimaryKeyValue.INF_MIN), key(s(EMOJI))),
                        new KeyRange(key(s(EMOJI)), key(PrimaryKeyValue.INF_MAX)));
        KeyBounds bounds =
                new KeyBounds(
                        List.of(), Optional.of(new Bound(s(BMP_HIGH), true)), Optional.empty());

        List<KeyRange> ranges = bounds.restrict(splits, schema);

        assertThat(ranges).hasSize(2);
        assertThat(ranges.get(0).inclusiveStart()).isEqualTo(key(s(BMP_HIGH)));
        assertThat(ranges.get(0).exclusiveEnd()).isEqualTo(key(s(EMOJI)));
        assertThat(ranges.get(1)).isEqualTo(splits.get(1));
    }
}
