package io.tablestorecdc.emulator.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TunnelJournalTest {

    @TempDir Path dir;

    private static final TunnelJournal.Position AT = new TunnelJournal.Position("t", 2, 123L);

    private static final PrimaryKey PADDED =
            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                    .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("m"))
                    .addPrimaryKeyColumn("n", PrimaryKeyValue.INF_MIN)
                    .build();

    private static TunnelJournal.Created created() {
        Row row =
                new Row(
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("a"))
                                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(1))
                                .build(),
                        List.of(new Column("v", ColumnValue.fromLong(5), 77L)));
        TunnelServiceApi.Tunnel definition =
                TunnelServiceApi.Tunnel.newBuilder()
                        .setTableName("t")
                        .setTunnelName("s")
                        .setTunnelType(TunnelServiceApi.TunnelType.BaseAndStream)
                        .build();
        return new TunnelJournal.Created(
                AT,
                "tid",
                9L,
                definition,
                Map.of("p-0", 4),
                List.of(new TunnelJournal.BaseChannel("BaseData_p-0", "p-0", List.of(row))));
    }

    @Test
    void everyEventRoundTrips() throws IOException {
        List<TunnelJournal.Event> events =
                List.of(
                        created(),
                        new TunnelJournal.Split(AT, PADDED, 10L),
                        new TunnelJournal.Merged(AT, PADDED, 11L),
                        new TunnelJournal.Checkpointed(AT, "tid", "p-0", "finished", 3L),
                        new TunnelJournal.Finished(AT, "tid", "p-1"),
                        new TunnelJournal.Expired(AT, "tid"),
                        new TunnelJournal.Deleted(AT, "tid"));
        try (TunnelJournal journal = TunnelJournal.open(dir).journal()) {
            for (TunnelJournal.Event e : events) {
                journal.append(e);
            }
        }

        TunnelJournal.Opened reopened = TunnelJournal.open(dir);
        reopened.journal().close();

        assertThat(reopened.events()).hasSize(events.size());
        assertThat(reopened.events().subList(1, events.size()))
                .isEqualTo(events.subList(1, events.size()));
        TunnelJournal.Created back = (TunnelJournal.Created) reopened.events().get(0);
        assertThat(back.definition()).isEqualTo(created().definition());
        assertThat(back.streamStarts()).isEqualTo(Map.of("p-0", 4));
        assertThat(back.baseChannels().get(0).rows().get(0).getColumns()[0].getTimestamp())
                .isEqualTo(77L);
    }

    @Test
    void aTornTailIsCutOff() throws IOException {
        try (TunnelJournal journal = TunnelJournal.open(dir).journal()) {
            journal.append(new TunnelJournal.Expired(AT, "tid"));
        }
        Files.write(
                dir.resolve(TunnelJournal.FILE_NAME),
                new byte[] {0, 0, 0, 40, 1, 2},
                StandardOpenOption.APPEND);

        TunnelJournal.Opened reopened = TunnelJournal.open(dir);
        reopened.journal().append(new TunnelJournal.Deleted(AT, "tid"));
        reopened.journal().close();

        TunnelJournal.Opened again = TunnelJournal.open(dir);
        again.journal().close();
        assertThat(again.events())
                .containsExactly(
                        new TunnelJournal.Expired(AT, "tid"), new TunnelJournal.Deleted(AT, "tid"));
    }

    @Test
    void aForeignFileIsRefused() throws IOException {
        Files.writeString(dir.resolve(TunnelJournal.FILE_NAME), "not a journal");

        assertThatThrownBy(() -> TunnelJournal.open(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(TunnelJournal.FILE_NAME)
                .hasMessageContaining("is not a journal this emulator version writes");
    }
}
