package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.BatchToken;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SourceOffsetTest {

    private static final BatchToken A = BatchToken.parse("00000000-0000-0000-0000-00000000000a");
    private static final BatchToken B = BatchToken.parse("00000000-0000-0000-0000-00000000000b");

    private static TablestoreOffset offset(BatchToken token, long batch, Map<String, Long> read) {
        return new TablestoreOffset(token, batch, new TreeMap<>(read));
    }

    @Test
    void aSourceOfOneTableLogsTheOffsetItAlwaysLogged() {
        TablestoreOffset one = offset(A, 3, Map.of("p-1", 1000L));
        SourceOffset source = SourceOffset.of("orders", one);

        assertThat(source.toSpark(true).json()).isEqualTo(one.json());
        assertThat(SourceOffset.fromJson(one.json(), true, "orders")).isEqualTo(source);
    }

    @Test
    void severalTablesRoundTripSortedByName() {
        SourceOffset source =
                new SourceOffset(
                        new TreeMap<>(
                                Map.of(
                                        "users",
                                        offset(B, 0, Map.of()),
                                        "orders",
                                        offset(A, 2, Map.of("p-1", -1L)))));
        String json = source.toSpark(false).json();

        assertThat(json)
                .isEqualTo(
                        "{\"tables\":{\"orders\":{\"batch\":2,\"read\":{\"p-1\":-1},\"token\":\""
                                + A
                                + "\"},\"users\":{\"batch\":0,\"read\":{},\"token\":\""
                                + B
                                + "\"}},\"version\":1}");
        assertThat(SourceOffset.fromJson(json, false, null)).isEqualTo(source);
    }

    @Test
    void aCheckpointOfTheOtherKindNamesTheFix() {
        String one = offset(A, 1, Map.of()).json();
        String several = SourceOffset.of("orders", offset(A, 1, Map.of())).json();

        assertThatThrownBy(() -> SourceOffset.fromJson(one, false, null))
                .hasMessageContaining("written by a tablestore-cdc source of one table")
                .hasMessageContaining("Use a new checkpoint location");
        assertThatThrownBy(() -> SourceOffset.fromJson(several, true, "orders"))
                .hasMessageContaining("source of several tables")
                .hasMessageContaining("one table (table.name=orders)");
        assertThatThrownBy(() -> SourceOffset.fromJson("{\"x\":1}", false, null))
                .hasMessageContaining("not a tablestore-cdc offset");
    }

    @Test
    void aNewerVersionOfSeveralTablesAsksForAnUpgrade() {
        assertThatThrownBy(
                        () -> SourceOffset.fromJson("{\"tables\":{},\"version\":2}", false, null))
                .hasMessageContaining("upgrade the connector");
    }
}
