package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferBuilder;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCodedInputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConversion;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferInputStream;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link PlainBufferRows} against the SDK's own decoding of the same bytes: rows as a GetRange
 * response carries them (one header, rows with timestamped cells), encoded by the SDK's builder.
 */
class PlainBufferRowsTest {

    private static final long SEED = 20261207L;

    @Test
    void rowsOfEveryTypeDecodeAsTheSdkDecodesThem() throws IOException {
        List<Row> rows = sampleRows(new Random(SEED), 40);
        ByteString bytes = encode(rows);

        List<Row> ours = new PlainBufferRows().read(bytes);

        assertThat(described(ours)).isEqualTo(described(sdkDecoding(bytes).orElseThrow()));
        assertThat(described(ours)).isEqualTo(described(rows));
        // A string keeps its UTF-8 bytes, so that an engine need not encode it again.
        Column text = ours.get(0).getLatestColumn("text");
        assertThat(text.getValue().asStringInBytes())
                .isEqualTo(text.getValue().asString().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aNextStartKeyIsOneRowWithOnlyItsPrimaryKey() throws IOException {
        PrimaryKey key = key("k-é", 7, new byte[] {1, 2});
        ByteString bytes = ByteString.copyFrom(PlainBufferBuilder.buildPrimaryKeyWithHeader(key));

        assertThat(new PlainBufferRows().readKey(bytes)).isEqualTo(key);
        assertThatThrownBy(
                        () -> new PlainBufferRows().readKey(encode(sampleRows(new Random(1), 2))))
                .isInstanceOf(ClientException.class)
                .hasMessageContaining("next start key of 2 rows");
    }

    @Test
    void noRowsAfterTheHeaderAreNoRows() {
        ByteString header = ByteString.copyFrom(new byte[] {0x75, 0, 0, 0});

        assertThat(new PlainBufferRows().read(header)).isEmpty();
        assertThatThrownBy(() -> new PlainBufferRows().read(ByteString.copyFrom(new byte[] {1})))
                .isInstanceOf(ClientException.class)
                .hasMessageContaining("cannot be read");
    }

    /**
     * One byte replaced, many times over: the rows are rejected, or read exactly as the SDK reads
     * them; never read differently.
     */
    @Test
    void damagedRowsAreRejectedOrReadExactlyAsTheSdkDoes() throws IOException {
        Random random = new Random(SEED + 1);
        int rejected = 0;
        int read = 0;
        for (int round = 0; round < 400; round++) {
            byte[] bytes = encode(sampleRows(random, 3)).toByteArray();
            int at = random.nextInt(bytes.length);
            byte was = bytes[at];
            do {
                bytes[at] = (byte) random.nextInt(256);
            } while (bytes[at] == was);
            ByteString damaged = ByteString.copyFrom(bytes);
            Optional<List<Row>> sdk = sdkDecoding(damaged);
            try {
                List<Row> ours = new PlainBufferRows().read(damaged);
                assertThat(sdk).as("the SDK rejects what was read").isPresent();
                assertThat(described(ours)).isEqualTo(described(sdk.get()));
                read++;
            } catch (ClientException e) {
                assertThat(e).hasMessageContaining("cannot be read");
                rejected++;
            }
        }
        assertThat(rejected).isGreaterThan(300);
        assertThat(read).isPositive();
    }

    private static List<Row> sampleRows(Random random, int count) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] blob = new byte[random.nextInt(5)];
            random.nextBytes(blob);
            List<Column> columns = new ArrayList<>();
            long ts = 1_700_000_000_000L + random.nextInt(1000);
            columns.add(new Column("text", ColumnValue.fromString("v" + i + "-ü字"), ts));
            if (random.nextBoolean()) {
                columns.add(new Column("n", ColumnValue.fromLong(random.nextLong()), ts));
            }
            columns.add(new Column("d", ColumnValue.fromDouble(random.nextDouble()), ts));
            columns.add(new Column("flag", ColumnValue.fromBoolean(random.nextBoolean()), ts));
            columns.add(new Column("bin", ColumnValue.fromBinary(blob), ts));
            columns.add(new Column("empty", ColumnValue.fromString(""), ts));
            rows.add(
                    new Row(key("k" + i, random.nextLong(), blob), columns.toArray(Column[]::new)));
        }
        return rows;
    }

    private static PrimaryKey key(String s, long n, byte[] b) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("s", PrimaryKeyValue.fromString(s))
                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                .addPrimaryKeyColumn("b", PrimaryKeyValue.fromBinary(b))
                .build();
    }

    /** The rows in one PlainBuffer: one header, then each row as the SDK's builder writes it. */
    private static ByteString encode(List<Row> rows) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {0x75, 0, 0, 0});
        for (Row row : rows) {
            RowPutChange put = new RowPutChange("t", row.getPrimaryKey());
            for (Column column : row.getColumns()) {
                put.addColumn(column);
            }
            byte[] one = PlainBufferBuilder.buildRowPutChangeWithHeader(put);
            out.write(one, 4, one.length - 4);
        }
        return ByteString.copyFrom(out.toByteArray());
    }

    private static Optional<List<Row>> sdkDecoding(ByteString bytes) {
        try {
            List<Row> rows = new ArrayList<>();
            PlainBufferCodedInputStream in =
                    new PlainBufferCodedInputStream(
                            new PlainBufferInputStream(bytes.asReadOnlyByteBuffer()));
            for (var row : in.readRowsWithHeader()) {
                rows.add(PlainBufferConversion.toRow(row));
            }
            return Optional.of(rows);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Each row as text: its key, and per column its name, type, value and timestamp. */
    private static List<String> described(List<Row> rows) {
        List<String> out = new ArrayList<>();
        for (Row row : rows) {
            StringBuilder text = new StringBuilder();
            for (var key : row.getPrimaryKey().getPrimaryKeyColumns()) {
                PrimaryKeyValue value = key.getValue();
                text.append(key.getName())
                        .append('=')
                        .append(
                                switch (value.getType()) {
                                    case BINARY -> Arrays.toString(value.asBinary());
                                    case INTEGER -> String.valueOf(value.asLong());
                                    case STRING -> value.asString();
                                })
                        .append(' ');
            }
            for (Column column : row.getColumns()) {
                ColumnValue value = column.getValue();
                text.append(" | ")
                        .append(column.getName())
                        .append(' ')
                        .append(value.getType())
                        .append(' ')
                        .append(
                                switch (value.getType()) {
                                    case BINARY -> Arrays.toString(value.asBinary());
                                    default -> String.valueOf(value.getValue());
                                })
                        .append(" @")
                        .append(column.hasSetTimestamp() ? column.getTimestamp() : -1);
            }
            out.add(text.toString());
        }
        return out;
    }
}
