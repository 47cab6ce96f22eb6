package io.tablestorecdc.checkpoint.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Limits, back-pressure, retries of failed rows and the errors users see. */
class BufferedTableWriterTest {

    private final FakeTableWriteClient fake = new FakeTableWriteClient();
    private final WriteCounters counters = new WriteCounters();
    private final List<Duration> waits = new ArrayList<>();

    private BufferedTableWriter writer(WriteSettings settings) {
        return new BufferedTableWriter(fake, "orders", settings, counters, waits::add);
    }

    private static RowKey key(long id) {
        return RowKey.of("id", CellValue.ofInteger(id));
    }

    private static RowWrite put(long id, long value) {
        return RowWrite.put(key(id), Map.of("v", CellValue.ofInteger(value)), SequenceInfo.NONE);
    }

    @Test
    void aBufferIsWrittenWhenItHoldsTheMaximumOfKeysAndNeverHoldsAKeyTwice() {
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        for (int i = 0; i < 450; i++) {
            writer.write(put(i % 250, i));
        }
        writer.flush();
        assertThat(fake.requests).extracting(List::size).containsExactly(200, 200, 50);
        assertThat(fake.rows).hasSize(250);
        assertThat(fake.rows.get(key(10))).containsEntry("v", CellValue.ofInteger(260));
        assertThat(counters.rowsWritten()).isEqualTo(450);
        assertThat(counters.requests()).isEqualTo(3);
        assertThat(counters.flushes()).isEqualTo(3);
    }

    @Test
    void changesOfOneKeyInOneBufferAreWrittenOnce() {
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        for (int i = 0; i < 450; i++) {
            writer.write(put(i % 150, i));
        }
        writer.flush();
        assertThat(fake.requests).extracting(List::size).containsExactly(150);
        assertThat(fake.rows.get(key(10))).containsEntry("v", CellValue.ofInteger(310));
        assertThat(counters.rowsWritten()).isEqualTo(150);
    }

    @Test
    void theRowLimitIsConfigurable() {
        BufferedTableWriter writer = writer(WriteSettings.defaults().withMaxRows(3));
        for (int i = 0; i < 7; i++) {
            writer.write(put(i, i));
        }
        assertThat(writer.bufferedKeys()).isEqualTo(1);
        writer.flush();
        assertThat(fake.requests).extracting(List::size).containsExactly(3, 3, 1);
    }

    @Test
    void theByteLimitCutsRequestsBeforeTheyReachIt() {
        BufferedTableWriter writer = writer(WriteSettings.defaults().withMaxBytes(10_000));
        String big = "x".repeat(3_000);
        for (int i = 0; i < 10; i++) {
            writer.write(
                    RowWrite.put(key(i), Map.of("v", CellValue.ofString(big)), SequenceInfo.NONE));
        }
        writer.flush();
        assertThat(fake.requests).hasSizeGreaterThanOrEqualTo(4);
        fake.requests.forEach(r -> assertThat(r.size()).isLessThanOrEqualTo(3));
        assertThat(fake.rows).hasSize(10);
    }

    @Test
    void aRowLargerThanOneRequestIsRefusedWithItsKey() {
        BufferedTableWriter writer = writer(WriteSettings.defaults().withMaxBytes(1_000));
        RowWrite huge =
                RowWrite.put(
                        key(7),
                        Map.of("v", CellValue.ofString("y".repeat(2_000))),
                        SequenceInfo.NONE);
        assertThatThrownBy(() -> writer.write(huge))
                .isInstanceOf(TablestoreWriteException.class)
                .hasMessageContaining("Row (id=7) of table orders is about")
                .hasMessageContaining("make its values smaller");
    }

    @Test
    void aRowWithMoreColumnsThanTheServiceTakesIsRefused() {
        Map<String, CellValue> columns = new HashMap<>();
        for (int i = 0; i < 1025; i++) {
            columns.put("c" + i, CellValue.ofInteger(i));
        }
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        assertThatThrownBy(() -> writer.write(RowWrite.put(key(1), columns, SequenceInfo.NONE)))
                .hasMessageContaining("Row (id=1) of table orders changes 1025 columns")
                .hasMessageContaining("at most 1024");
    }

    @Test
    void onlyTheRowsThatFailedForAPassingReasonAreSentAgain() {
        fake.failRow(key(2), "OTSServerBusy", "Server is busy.", 1)
                .failRow(key(3), "OTSPartitionUnavailable", "Partition is unavailable.", 2);
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        for (int i = 1; i <= 4; i++) {
            writer.write(put(i, i));
        }
        writer.flush();
        assertThat(fake.requests).extracting(List::size).containsExactly(4, 2, 1);
        assertThat(fake.requests.get(1)).extracting(RowWrite::key).containsExactly(key(2), key(3));
        assertThat(fake.rows).hasSize(4);
        assertThat(counters.retries()).isEqualTo(3);
        assertThat(counters.rowsWritten()).isEqualTo(4);
        assertThat(waits).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
        // Every row answered is charged, the refused attempts too: 4 + 2 + 1 rows.
        assertThat(counters.writeCapacityUnits()).isEqualTo(7);
    }

    @Test
    void retriesAreBoundedAndTheErrorNamesRowCodeAndMessage() {
        fake.failRow(key(5), "OTSQuotaExhausted", "Too frequent table operations.", 10);
        BufferedTableWriter writer =
                writer(
                        WriteSettings.defaults()
                                .withMaxRetries(2)
                                .withBackoff(Duration.ofMillis(400), Duration.ofMillis(500)));
        writer.write(put(5, 1));
        assertThatThrownBy(writer::flush)
                .isInstanceOf(TablestoreWriteException.class)
                .hasMessageContaining("Could not write row (id=5) of table orders after 2 retries")
                .hasMessageContaining("OTSQuotaExhausted: Too frequent table operations.");
        assertThat(fake.requests).hasSize(3);
        assertThat(waits).containsExactly(Duration.ofMillis(400), Duration.ofMillis(500));
    }

    @Test
    void aRowRefusedForGoodFailsAtOnceNamingTheRowTheCodeAndTheFix() {
        fake.failRow(key(9), "OTSParameterInvalid", "Invalid column name: '#bad'.", 1);
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        writer.write(put(8, 1));
        writer.write(put(9, 1));
        assertThatThrownBy(writer::flush)
                .isInstanceOf(TablestoreWriteException.class)
                .hasMessageContaining(
                        "Tablestore refused to write row (id=9) of table orders (PUT)")
                .hasMessageContaining("OTSParameterInvalid: Invalid column name: '#bad'.")
                .hasMessageContaining("check that every primary-key column is present");
        assertThat(fake.requests).hasSize(1);
        assertThat(waits).isEmpty();
        assertThat(writer.bufferedKeys()).isZero();
    }

    @Test
    void aKeyTheTableRefusesNamesTheKeyColumnsAsTheFix() {
        fake.failRow(key(9), "OTSInvalidPK", "Validate PK type fail.", 1);
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        writer.write(put(9, 1));
        assertThatThrownBy(writer::flush)
                .isInstanceOf(TablestoreWriteException.class)
                .hasMessageContaining("OTSInvalidPK: Validate PK type fail.")
                .hasMessageContaining("send every primary-key column of the table, in the table's");
        assertThat(fake.requests).as("not retried").hasSize(1);
    }

    @Test
    void aRequestThatFailedAsAWholeIsSentAgainWhenThatMayHelp() {
        fake.failRequest(new WriteRequestException("ClientError", "Connection reset", true, null));
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        writer.write(put(1, 1));
        writer.write(put(2, 2));
        writer.flush();
        assertThat(fake.requests).hasSize(2);
        assertThat(fake.rows).hasSize(2);
        assertThat(counters.retries()).isEqualTo(2);
    }

    @Test
    void aRequestRefusedAsAWholeFailsWithTheCodeAndHint() {
        fake.failRequest(
                new WriteRequestException(
                        "OTSObjectNotExist", "Requested table does not exist.", false, null));
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        writer.write(put(1, 1));
        assertThatThrownBy(writer::flush)
                .hasMessageContaining("A BatchWriteRow request of 1 row(s) to table orders")
                .hasMessageContaining("OTSObjectNotExist: Requested table does not exist.")
                .hasMessageContaining("create it, or check table.name");
        assertThat(fake.requests).hasSize(1);
    }

    @Test
    void deletesAreWrittenOrIgnoredAsConfigured() {
        fake.rows.put(key(1), Map.of("v", CellValue.ofInteger(1)));
        fake.rows.put(key(2), Map.of("v", CellValue.ofInteger(2)));
        BufferedTableWriter ignoring = writer(WriteSettings.defaults().withIgnoreDelete(true));
        ignoring.write(RowWrite.delete(key(1), SequenceInfo.NONE));
        ignoring.flush();
        assertThat(fake.rows).containsKey(key(1));
        assertThat(counters.deletesIgnored()).isEqualTo(1);
        assertThat(fake.requests).isEmpty();

        BufferedTableWriter writing = writer(WriteSettings.defaults());
        writing.write(RowWrite.delete(key(2), SequenceInfo.NONE));
        writing.flush();
        assertThat(fake.rows).doesNotContainKey(key(2));
    }

    @Test
    void aChangeOlderThanTheBufferedOneOfItsKeyDoesNotOverwriteIt() {
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        writer.write(
                RowWrite.update(
                        key(1),
                        Map.of("v", CellValue.ofInteger(5)),
                        Set.of(),
                        new SequenceInfo(1, 500, 0)));
        writer.write(
                RowWrite.update(
                        key(1),
                        Map.of("v", CellValue.ofInteger(3), "w", CellValue.ofInteger(3)),
                        Set.of(),
                        new SequenceInfo(1, 300, 0)));
        writer.flush();
        assertThat(fake.rows.get(key(1)))
                .containsEntry("v", CellValue.ofInteger(5))
                .containsEntry("w", CellValue.ofInteger(3));
    }

    @Test
    void anEmptyFlushSendsNothingAndCloseClosesTheClient() {
        BufferedTableWriter writer = writer(WriteSettings.defaults());
        writer.flush();
        assertThat(fake.requests).isEmpty();
        assertThat(writer.bufferedFor()).isZero();
        writer.close();
        assertThat(fake.closed).isTrue();
    }

    @Test
    void settingsOutsideTheServiceLimitsAreRefused() {
        assertThatThrownBy(() -> WriteSettings.defaults().withMaxRows(201))
                .hasMessageContaining("between 1 and 200");
        assertThatThrownBy(() -> WriteSettings.defaults().withMaxBytes(5L << 20))
                .hasMessageContaining("4 MB");
        assertThatThrownBy(() -> WriteSettings.defaults().withMaxRetries(-1))
                .hasMessageContaining("0 or more");
    }
}
