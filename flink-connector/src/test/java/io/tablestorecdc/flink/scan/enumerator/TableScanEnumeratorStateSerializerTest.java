package io.tablestorecdc.flink.scan.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.flink.scan.split.TableScanSplit;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableScanEnumeratorStateSerializerTest {

    static final String TWO_SPLITS_V1 =
            "0100000002000772616e67652d300000001201000100016b00000100016b02000000016200000772"
                    + "616e67652d310000001201000100016b020000000162000100016b01010000000c01000100016b020000000163";

    private static final TableScanSplit FIRST =
            TableScanSplit.unread("range-0", new KeyRange(key(null), key("b")));
    private static final TableScanSplit SECOND =
            new TableScanSplit("range-1", new KeyRange(key("b"), key("~")), Optional.of(key("c")));

    /** A one-column key; null for INF_MIN, "~" for INF_MAX. */
    private static com.alicloud.openservices.tablestore.model.PrimaryKey key(String k) {
        PrimaryKeyValue value =
                k == null
                        ? PrimaryKeyValue.INF_MIN
                        : k.equals("~") ? PrimaryKeyValue.INF_MAX : PrimaryKeyValue.fromString(k);
        return PrimaryKeyBuilder.createPrimaryKeyBuilder().addPrimaryKeyColumn("k", value).build();
    }

    private final TableScanEnumeratorStateSerializer serializer =
            new TableScanEnumeratorStateSerializer();

    @Test
    void statesRoundTrip() throws IOException {
        for (TableScanEnumeratorState state :
                List.of(
                        new TableScanEnumeratorState(false, List.of()),
                        new TableScanEnumeratorState(true, List.of()),
                        new TableScanEnumeratorState(true, List.of(FIRST, SECOND)))) {
            assertThat(serializer.deserialize(1, serializer.serialize(state))).isEqualTo(state);
        }
    }

    @Test
    void version1GoldenBytesStillDeserializeAndAreWhatTheCurrentVersionWrites() throws IOException {
        TableScanEnumeratorState state = new TableScanEnumeratorState(true, List.of(FIRST, SECOND));

        assertThat(HexFormat.of().formatHex(serializer.serialize(state))).isEqualTo(TWO_SPLITS_V1);
        assertThat(serializer.deserialize(1, HexFormat.of().parseHex(TWO_SPLITS_V1)))
                .isEqualTo(state);
    }

    @Test
    void anUnknownVersionAndTrailingBytesAreRefused() throws IOException {
        byte[] bytes = serializer.serialize(new TableScanEnumeratorState(true, List.of(FIRST)));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 3);

        assertThatThrownBy(() -> serializer.deserialize(2, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown table scan enumerator state version 2")
                .hasMessageContaining("upgrade the connector to restore it");
        assertThatThrownBy(() -> serializer.deserialize(1, longer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("3 unexpected trailing bytes");
    }
}
