package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.core.ResponseContentWithMeta;
import com.alicloud.openservices.tablestore.core.protocol.ResponseFactory;
import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.Response;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link PlainBufferRecordPage} against the SDK's own decoding of the same response: the emulator
 * serves random changes of every cell type and operation, with and without before-images and
 * sequence info; each response is decoded both ways and must give the same records. Then each
 * record's bytes are damaged at random and both ways must agree again: both reject the record, or
 * both read the same change from it.
 */
class PlainBufferRecordPageITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final long SEED = 20261204L;

    private static TunnelEmulatorFixture bed;
    private static SdkTunnelProxy proxy;

    @BeforeAll
    static void start() {
        bed = new TunnelEmulatorFixture();
        proxy = bed.proxy(new TunnelMetrics());
    }

    @AfterAll
    static void stop() {
        proxy.close();
        bed.close();
    }

    /** A connected client of a new tunnel of {@code type} on {@code table}, and its start. */
    private record Reading(TunnelClientId client, String channelId, String start) {
        static Reading of(String table, TunnelType type, String channelId) {
            String tunnelId = proxy.createTunnel(table, "cdc", type, TunnelStart.latest());
            TunnelClientId client = proxy.connect(tunnelId, "it", TIMEOUT);
            proxy.heartbeat(client, List.of());
            return new Reading(
                    client, channelId, proxy.getCheckpoint(client, channelId).position().token());
        }

        List<RecordsResponse> drain() {
            return PlainBufferRecordPageITCase.drain(client, channelId, start);
        }
    }

    @Test
    void streamRecordsOfEveryKindDecodeAsTheSdkDecodesThem() {
        String table = bed.newTableWithBeforeImages("s", "n");
        Reading reading = Reading.of(table, TunnelType.STREAM, "p-0");
        writeRandomChanges(table, new Random(SEED), 300);

        List<RecordsResponse> responses = reading.drain();

        int records = compareAll(responses, "p-0");
        assertThat(records).isGreaterThanOrEqualTo(300);
    }

    @Test
    void baseDataRecordsWithoutSequenceInfoDecodeAsTheSdkDecodesThem() {
        String table = bed.newTable();
        writeRandomChanges(table, new Random(SEED + 1), 200);
        Reading reading = Reading.of(table, TunnelType.BASE_DATA, "BaseData_p-0");

        List<RecordsResponse> responses = reading.drain();

        assertThat(compareAll(responses, "BaseData_p-0")).isPositive();
    }

    @Test
    void damagedRecordsAreRejectedOrReadExactlyAsTheSdkDoes() {
        String table = bed.newTableWithBeforeImages("s", "b");
        Reading reading = Reading.of(table, TunnelType.STREAM, "p-0");
        writeRandomChanges(table, new Random(SEED + 2), 60);
        List<TunnelServiceApi.Record> records = new ArrayList<>();
        for (RecordsResponse r : reading.drain()) {
            records.addAll(WireMessages.message(r).getRecordsList());
        }
        assertThat(records).hasSizeGreaterThanOrEqualTo(60);

        Random random = new Random(SEED + 3);
        int rejected = 0;
        int read = 0;
        for (TunnelServiceApi.Record record : records) {
            for (int m = 0; m < 40; m++) {
                TunnelServiceApi.Record damaged = damage(record, random);
                Optional<ChangeRecord> sdk = sdkDecoding(damaged);
                Optional<ChangeRecord> ours = ourDecoding(damaged);
                assertThat(ours).as("damaged %s", damaged).isEqualTo(sdk);
                if (sdk.isPresent()) {
                    read++;
                } else {
                    rejected++;
                }
            }
        }
        // Most damage is caught by a checksum; the rest (sequence info, lengths the types imply)
        // reads alike both ways.
        assertThat(rejected).isGreaterThan(records.size() * 20);
        assertThat(read).isPositive();
    }

    /**
     * Each response decoded both ways (read in place as the server sent it; the SDK's protobuf
     * message of the same bytes): the same records, sequences, token and size.
     */
    private static int compareAll(List<RecordsResponse> responses, String ch) {
        int count = 0;
        for (RecordsResponse response : responses) {
            ReadResult ours = SdkTunnelProxy.toReadResult(response, ch);
            ReadResult sdk =
                    SdkDecodedReads.toReadResult(sdkResponse(WireMessages.message(response)), ch);
            assertThat(ours.next()).isEqualTo(sdk.next());
            assertThat(ours.mayMoreRecord()).isEqualTo(sdk.mayMoreRecord());
            assertThat(ours.records()).isEqualTo(sdk.records());
            for (int i = 0; i < sdk.page().size(); i++) {
                SequenceInfo expected = sdk.page().sequence(i);
                assertThat(ours.page().sequence(i)).isEqualTo(expected);
            }
            count += sdk.page().size();
        }
        return count;
    }

    private static Optional<ChangeRecord> sdkDecoding(TunnelServiceApi.Record record) {
        TunnelServiceApi.ReadRecordsResponse message = single(record);
        ReadRecordsResponse decoded;
        try {
            decoded = sdkResponse(message);
        } catch (RuntimeException e) {
            return Optional.empty(); // the SDK could not parse it
        }
        return convert(SdkDecodedReads.toReadResult(decoded, "p-0").page());
    }

    private static Optional<ChangeRecord> ourDecoding(TunnelServiceApi.Record record) {
        return convert(
                SdkTunnelProxy.toReadResult(WireMessages.inPlace(single(record)), "p-0").page());
    }

    private static Optional<ChangeRecord> convert(RecordPage page) {
        try {
            ChangeRecord record = page.record(0);
            assertThat(page.sequence(0)).isEqualTo(record.sequence());
            return Optional.of(record);
        } catch (TunnelException e) {
            assertThat(e.kind()).isEqualTo(TunnelException.Kind.MALFORMED_RESPONSE);
            return Optional.empty();
        }
    }

    private static TunnelServiceApi.ReadRecordsResponse single(TunnelServiceApi.Record record) {
        return TunnelServiceApi.ReadRecordsResponse.newBuilder()
                .addRecords(record)
                .setNextToken("next")
                .build();
    }

    private static ReadRecordsResponse sdkResponse(TunnelServiceApi.ReadRecordsResponse message) {
        return ResponseFactory.createReadRecordsResponse(
                new ResponseContentWithMeta(message, new Response()), message);
    }

    /** The record with one byte of its row or of its before-image replaced. */
    private static TunnelServiceApi.Record damage(TunnelServiceApi.Record record, Random random) {
        boolean before = record.hasOriginRecord() && random.nextInt(3) == 0;
        byte[] bytes = (before ? record.getOriginRecord() : record.getRecord()).toByteArray();
        int at = random.nextInt(bytes.length);
        byte was = bytes[at];
        do {
            bytes[at] = (byte) random.nextInt(256);
        } while (bytes[at] == was);
        TunnelServiceApi.Record.Builder damaged = record.toBuilder();
        if (before) {
            damaged.setOriginRecord(ByteString.copyFrom(bytes));
        } else {
            damaged.setRecord(ByteString.copyFrom(bytes));
        }
        return damaged.build();
    }

    private static List<RecordsResponse> drain(
            TunnelClientId client, String channelId, String token) {
        List<RecordsResponse> responses = new ArrayList<>();
        String next = token;
        for (int reads = 0; reads < 10_000; reads++) {
            RecordsResponse response = proxy.readUndecoded(client, channelId, next);
            responses.add(response);
            if ("finished".equals(response.nextToken())
                    || (response.size() == 0 && !response.mayMoreRecord())) {
                return responses;
            }
            next = response.nextToken();
        }
        throw new AssertionError("Channel " + channelId + " did not drain");
    }

    /** Puts, updates (puts, one-version and all-version deletes) and row deletes of 12 keys. */
    private static void writeRandomChanges(String table, Random random, int changes) {
        for (int i = 0; i < changes; i++) {
            String id = "k" + random.nextInt(12);
            switch (random.nextInt(4)) {
                case 0, 1 -> {
                    RowPutChange put = new RowPutChange(table, TunnelEmulatorFixture.key(id));
                    for (Column c : randomColumns(random)) {
                        put.addColumn(c);
                    }
                    AppliedOnceWrites.put(bed.sync, put);
                }
                case 2 -> {
                    RowUpdateChange update =
                            new RowUpdateChange(table, TunnelEmulatorFixture.key(id));
                    for (Column c : randomColumns(random)) {
                        update.put(c);
                    }
                    update.deleteColumn("n", 1_000L + random.nextInt(3));
                    if (random.nextBoolean()) {
                        update.deleteColumns("b");
                    }
                    AppliedOnceWrites.update(bed.sync, update);
                }
                default ->
                        AppliedOnceWrites.delete(
                                bed.sync,
                                new RowDeleteChange(table, TunnelEmulatorFixture.key(id)));
            }
        }
    }

    private static List<Column> randomColumns(Random random) {
        List<Column> columns = new ArrayList<>();
        String[] texts = {"", "x", "déjà vu ✓", "a longer string value of some forty bytes"};
        columns.add(new Column("s", ColumnValue.fromString(texts[random.nextInt(texts.length)])));
        if (random.nextInt(4) == 0) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(300); i > 0; i--) {
                text.append((char) (' ' + random.nextInt(95)));
            }
            columns.add(new Column("long", ColumnValue.fromString(text.toString())));
        }
        if (random.nextBoolean()) {
            columns.add(
                    new Column(
                            "n",
                            ColumnValue.fromLong(random.nextLong()),
                            1_000L + random.nextInt(3)));
        }
        if (random.nextBoolean()) {
            columns.add(new Column("d", ColumnValue.fromDouble(random.nextGaussian())));
        }
        if (random.nextBoolean()) {
            columns.add(new Column("b", ColumnValue.fromBoolean(random.nextBoolean())));
        }
        if (random.nextBoolean()) {
            byte[] blob = new byte[random.nextInt(20)];
            random.nextBytes(blob);
            columns.add(new Column("bin", ColumnValue.fromBinary(blob)));
        }
        return columns;
    }
}
