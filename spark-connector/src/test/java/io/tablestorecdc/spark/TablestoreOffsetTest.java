package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchToken;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TablestoreOffsetTest {

    static final BatchToken TOKEN =
            BatchToken.of(UUID.fromString("3f2504e0-4f89-41d3-9a0c-0305e82c3301"));

    @Test
    void jsonHasSortedKeysAndAVersion() {
        TreeMap<String, Long> read = new TreeMap<>();
        read.put("p-2", 10L);
        read.put("p-1", TablestoreOffset.UNCAPPED);

        String json = new TablestoreOffset(TOKEN, 3, read).json();

        assertThat(json)
                .isEqualTo(
                        "{\"batch\":3,\"read\":{\"p-1\":-1,\"p-2\":10},"
                                + "\"token\":\"3f2504e0-4f89-41d3-9a0c-0305e82c3301\",\"version\":1}");
    }

    @Test
    void roundTripsThroughJson() {
        TreeMap<String, Long> read = new TreeMap<>();
        read.put("BaseData_p-0", 500L);
        TablestoreOffset offset = new TablestoreOffset(TOKEN, 12, read);

        assertThat(TablestoreOffset.fromJson(offset.json())).isEqualTo(offset);
        assertThat(TablestoreOffset.from(offset.toSpark())).isEqualTo(offset);
        assertThat(offset.toSpark()).isEqualTo(TablestoreOffset.fromJson(offset.json()).toSpark());
    }

    @Test
    void initialOffsetReadsNothing() {
        TablestoreOffset initial = TablestoreOffset.initial(TOKEN);

        assertThat(initial.batch()).isZero();
        assertThat(initial.read()).isEmpty();
    }

    @Test
    void newerVersionIsRefusedWithUpgradeHint() {
        String json = "{\"batch\":1,\"read\":{},\"token\":\"" + TOKEN + "\",\"version\":2}";

        assertThatThrownBy(() -> TablestoreOffset.fromJson(json))
                .hasMessageContaining("version 2")
                .hasMessageContaining("upgrade the connector");
    }

    @Test
    void foreignOffsetsAreRefused() {
        assertThatThrownBy(() -> TablestoreOffset.fromJson("{\"topic\":{\"0\":23}}"))
                .hasMessageContaining("not a tablestore-cdc offset")
                .hasMessageContaining("checkpoint location");
        assertThatThrownBy(() -> TablestoreOffset.fromJson("3f2504e0"))
                .hasMessageContaining("not a tablestore-cdc offset");
        assertThatThrownBy(
                        () ->
                                TablestoreOffset.fromJson(
                                        "{\"batch\":1,\"read\":{},\"token\":\"x\",\"version\":1}"))
                .hasMessageContaining("Invalid batch token");
    }
}
