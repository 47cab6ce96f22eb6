package io.tablestorecdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EnumeratorStateSerializerTest {

    private final EnumeratorStateSerializer serializer = new EnumeratorStateSerializer();

    private static EnumeratorState goldenStateV1() {
        return new EnumeratorState(Optional.of("tunnel-42"), goldenState().splits());
    }

    private static EnumeratorState goldenState() {
        Map<String, EnumeratorState.Entry> splits = new LinkedHashMap<>();
        put(splits, "a", ChannelType.STREAM, ChannelPosition.at("a@5"), SplitStatus.ASSIGNED);
        put(splits, "b", ChannelType.STREAM, ChannelPosition.finished(), SplitStatus.FINISHED);
        put(
                splits,
                "c",
                ChannelType.BASE_DATA,
                ChannelPosition.at("c@0", 2),
                SplitStatus.UNASSIGNED);
        return new EnumeratorState(Optional.of("tunnel-42"), Optional.of("consumer-7"), splits);
    }

    private static void put(
            Map<String, EnumeratorState.Entry> splits,
            String id,
            ChannelType type,
            ChannelPosition position,
            SplitStatus status) {
        splits.put(id, new EnumeratorState.Entry(new ChannelSplit(id, type, position), status));
    }

    @Test
    void version1GoldenBytesStillDeserialize() throws IOException {
        EnumeratorState restored = serializer.deserialize(1, golden());

        assertThat(restored).isEqualTo(goldenStateV1());
        assertThat(restored.consumerId()).isEmpty();
    }

    @Test
    void version2GoldenBytesDeserializeWithTheConsumerId() throws IOException {
        assertThat(serializer.deserialize(2, golden("v2"))).isEqualTo(goldenState());
    }

    @Test
    void version3GoldenBytesDeserializeWithTheCheckpointId() throws IOException {
        EnumeratorState restored = serializer.deserialize(3, golden("v3"));

        assertThat(restored).isEqualTo(goldenStateV3());
        assertThat(restored.checkpointId()).contains(7L);
    }

    @Test
    void version3GoldenBytesDeserializeWithoutTheLeaseHolder() throws IOException {
        assertThat(serializer.deserialize(3, golden("v3")).leaseHolder()).isEmpty();
    }

    @Test
    void version4GoldenBytesDeserializeWithTheLeaseHolder() throws IOException {
        EnumeratorState restored = serializer.deserialize(4, golden("v4"));

        assertThat(restored).isEqualTo(goldenStateV4());
        assertThat(restored.leaseHolder()).contains("holder-3");
    }

    @Test
    void currentVersionWritesTheVersion5GoldenBytes() throws IOException {
        assertThat(serializer.getVersion()).isEqualTo(EnumeratorStateSerializer.VERSION_5);
        assertThat(serializer.serialize(goldenStateV4())).isEqualTo(golden("v5"));
        assertThat(serializer.deserialize(5, golden("v5"))).isEqualTo(goldenStateV4());
    }

    @Test
    void theStateOfSeveralTablesHoldsEachTablesStateByName() throws IOException {
        EnumeratorState users =
                new EnumeratorState(
                        Optional.of("tunnel-43"),
                        Optional.of("consumer-7"),
                        Map.of(),
                        Optional.of(7L),
                        Optional.of("holder-4"));
        Map<String, EnumeratorState> tables = new LinkedHashMap<>();
        tables.put("orders", goldenStateV4());
        tables.put("users", users);
        EnumeratorState state = EnumeratorState.ofTables("consumer-7", 7L, tables);

        assertThat(serializer.serialize(state)).isEqualTo(golden("v5-tables"));
        EnumeratorState read = serializer.deserialize(5, golden("v5-tables"));
        assertThat(read).isEqualTo(state);
        assertThat(read.ofSeveralTables()).isTrue();
        assertThat(read.ofOneTable()).isFalse();
        assertThat(read.tables().get("orders").splits()).isEqualTo(goldenStateV4().splits());
        assertThat(read.tables().get("users").leaseHolder()).contains("holder-4");
    }

    @Test
    void roundTripsAStateWithoutATunnelYet() throws IOException {
        EnumeratorState initial = EnumeratorState.initial();

        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(initial)))
                .isEqualTo(initial);
        assertThat(initial.ofOneTable()).isFalse();
        assertThat(initial.ofSeveralTables()).isFalse();
    }

    private static EnumeratorState goldenStateV3() {
        EnumeratorState v2 = goldenState();
        return new EnumeratorState(v2.tunnelId(), v2.consumerId(), v2.splits(), Optional.of(7L));
    }

    private static EnumeratorState goldenStateV4() {
        EnumeratorState v3 = goldenStateV3();
        return new EnumeratorState(
                v3.tunnelId(),
                v3.consumerId(),
                v3.splits(),
                v3.checkpointId(),
                Optional.of("holder-3"));
    }

    @Test
    void rejectsTrailingBytesUnknownVersionsAndStatusCodes() throws IOException {
        byte[] bytes = golden();
        assertThatThrownBy(() -> serializer.deserialize(1, Arrays.copyOf(bytes, bytes.length + 2)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("2 unexpected trailing bytes");
        assertThatThrownBy(() -> serializer.deserialize(9, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown enumerator state version 9");

        byte[] badStatus = bytes.clone();
        badStatus[18] = 'Z'; // status code of the first split
        assertThatThrownBy(() -> serializer.deserialize(1, badStatus))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown split status code 'Z'");
    }

    private static byte[] golden() throws IOException {
        return golden("v1");
    }

    private static byte[] golden(String version) throws IOException {
        try (InputStream in =
                EnumeratorStateSerializerTest.class.getResourceAsStream(
                        "/golden/enumerator-state-" + version + ".bin")) {
            assertThat(in).isNotNull();
            return in.readAllBytes();
        }
    }
}
