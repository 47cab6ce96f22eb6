package io.tablestorecdc.checkpoint.table;

import static io.tablestorecdc.checkpoint.testing.FakeTableService.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.testing.FakeTableService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TableReaderTest {

    private static final ServiceError BUSY = new ServiceError("OTSServerBusy", "busy");
    private static final ServiceError INVALID =
            new ServiceError("OTSParameterInvalid", "Validate PK type fail");

    private final FakeTableService service = new FakeTableService(3);
    private final List<Duration> pauses = new ArrayList<>();
    private final TableReader reader = new TableReader(service, 2, pauses::add);

    private static String value(Optional<Row> row) {
        return row.map(r -> r.getLatestColumn("v").getValue().asString()).orElse("-");
    }

    @Test
    void keysAreReadInBatchesOfAtMostOneHundredInTheirOrder() {
        IntStream.range(0, 250).forEach(i -> service.put("k", i, "v" + i));
        List<PrimaryKey> keys = new ArrayList<>();
        IntStream.range(0, 250).forEach(i -> keys.add(key("k", 249 - i)));
        keys.add(key("missing", 1));

        List<Optional<Row>> rows = reader.get(keys, Set.of());

        assertThat(service.batchGets).extracting(List::size).containsExactly(100, 100, 51);
        assertThat(rows).hasSize(251);
        assertThat(value(rows.get(0))).isEqualTo("v249");
        assertThat(value(rows.get(249))).isEqualTo("v0");
        assertThat(rows.get(250)).isEmpty();
    }

    @Test
    void aRepeatedKeyIsReadOnceAndAnsweredAtEachPlace() {
        service.put("a", 1, "x");

        List<Optional<Row>> rows = reader.get(List.of(key("a", 1), key("a", 1)), Set.of());

        assertThat(service.batchGets).containsExactly(List.of(key("a", 1)));
        assertThat(rows).extracting(TableReaderTest::value).containsExactly("x", "x");
    }

    @Test
    void onlyTheRowsThatFailedTransientlyAreRetried() {
        service.put("a", 1, "x");
        service.put("b", 1, "y");
        service.fail(key("b", 1), BUSY, BUSY);

        List<Optional<Row>> rows = reader.get(List.of(key("a", 1), key("b", 1)), Set.of());

        assertThat(rows).extracting(TableReaderTest::value).containsExactly("x", "y");
        assertThat(service.batchGets)
                .containsExactly(
                        List.of(key("a", 1), key("b", 1)),
                        List.of(key("b", 1)),
                        List.of(key("b", 1)));
        assertThat(pauses).containsExactly(Duration.ofMillis(20), Duration.ofMillis(40));
    }

    @Test
    void aRowStillFailingAfterTheRetriesNamesTheKeyAndTheServiceError() {
        service.fail(key("b", 1), BUSY, BUSY, BUSY);

        assertThatThrownBy(() -> reader.get(List.of(key("b", 1)), Set.of()))
                .isInstanceOfSatisfying(
                        RowReadException.class,
                        e -> assertThat(e.code()).isEqualTo("OTSServerBusy"))
                .hasMessageContaining("'fake'")
                .hasMessageContaining("b")
                .hasMessageContaining("OTSServerBusy: busy")
                .hasMessageContaining("after 3 attempts");
        assertThat(service.batchGets).hasSize(3);
    }

    @Test
    void aNonRetriableRowErrorFailsAtOnce() {
        service.fail(key("b", 1), INVALID);

        assertThatThrownBy(() -> reader.get(List.of(key("b", 1)), Set.of()))
                .isInstanceOf(RowReadException.class)
                .hasMessageContaining("OTSParameterInvalid: Validate PK type fail (not retriable)");
        assertThat(service.batchGets).hasSize(1);
        assertThat(pauses).isEmpty();
    }

    @Test
    void aPrefixReadsEveryMatchingRowAcrossPages() {
        IntStream.range(0, 7).forEach(i -> service.put("p", i, "p" + i));
        service.put("o", 0, "before");
        service.put("q", 0, "after");

        List<Row> rows = reader.getByPrefix(List.of(PrimaryKeyValue.fromString("p")), Set.of());

        assertThat(rows)
                .extracting(r -> r.getLatestColumn("v").getValue().asString())
                .containsExactly("p0", "p1", "p2", "p3", "p4", "p5", "p6");
        assertThat(service.ranges).hasSize(3);
        assertThat(service.ranges.get(0).inclusiveStart())
                .isEqualTo(
                        TableReader.padded(
                                service.primaryKey(),
                                List.of(PrimaryKeyValue.fromString("p")),
                                PrimaryKeyValue.INF_MIN));
    }

    @Test
    void aPrefixLongerThanTheKeyIsRefused() {
        List<PrimaryKeyValue> prefix =
                List.of(
                        PrimaryKeyValue.fromString("p"),
                        PrimaryKeyValue.fromLong(1),
                        PrimaryKeyValue.fromLong(2));

        assertThatThrownBy(() -> reader.getByPrefix(prefix, Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "A key prefix needs 1 to 2 values of table 'fake' primary key [id, n],"
                                + " got 3");
    }

    @Test
    void negativeRetriesAndSplitSizesAreRefused() {
        assertThatThrownBy(() -> new TableReader(service, -1))
                .hasMessage("maxRetries must not be negative, got -1");
        assertThatThrownBy(() -> reader.splits(0))
                .hasMessage("A split size must be positive, got 0");
    }

    @Test
    void rowsOfARangeAreReadPageByPageAsTheIteratorAdvances() {
        IntStream.range(0, 7).forEach(i -> service.put("r", i, "v" + i));
        KeyRange range = new KeyRange(key("r", 1), key("r", 6));

        java.util.Iterator<Row> rows = reader.rows(range, Set.of("v"));

        assertThat(service.ranges).isEmpty();
        List<String> values = new ArrayList<>();
        rows.forEachRemaining(row -> values.add(row.getLatestColumn("v").getValue().asString()));
        assertThat(values).containsExactly("v1", "v2", "v3", "v4", "v5");
        assertThat(service.ranges).containsExactly(range, new KeyRange(key("r", 4), key("r", 6)));
        assertThatThrownBy(rows::next).isInstanceOf(java.util.NoSuchElementException.class);
    }

    @Test
    void aRowLimitStopsTheReadAndNoPageAsksForMore() {
        IntStream.range(0, 7).forEach(i -> service.put("r", i, "v" + i));
        KeyRange range = new KeyRange(key("r", 0), key("r", 7));

        List<String> values = new ArrayList<>();
        reader.rows(range, Set.of(), 4)
                .forEachRemaining(
                        row -> values.add(row.getLatestColumn("v").getValue().asString()));

        assertThat(values).containsExactly("v0", "v1", "v2", "v3");
        assertThat(service.limits).containsExactly(4, 1);
        assertThat(reader.rows(range, Set.of(), 0).hasNext()).isFalse();
        assertThat(service.limits).hasSize(2);
        assertThatThrownBy(() -> reader.rows(range, Set.of(), -1))
                .hasMessage("maxRows must not be negative, got -1");
    }

    @Test
    void theNextPageIsAskedForWhileTheCurrentOneIsRead() {
        IntStream.range(0, 7).forEach(i -> service.put("r", i, "v" + i));
        KeyRange range = new KeyRange(key("r", 0), key("r", 7));

        java.util.Iterator<Row> rows = reader.rows(range, Set.of());

        assertThat(rows.next().getLatestColumn("v").getValue().asString()).isEqualTo("v0");
        assertThat(service.ranges)
                .as("the first page read, the second asked for")
                .containsExactly(range, new KeyRange(key("r", 3), key("r", 7)));
        List<String> values = new ArrayList<>();
        rows.forEachRemaining(row -> values.add(row.getLatestColumn("v").getValue().asString()));
        assertThat(values).containsExactly("v1", "v2", "v3", "v4", "v5", "v6");
        assertThat(service.ranges).hasSize(3);
    }

    @Test
    void aPageThatFailedFailsWhenTheReaderReachesIt() {
        IntStream.range(0, 7).forEach(i -> service.put("r", i, "v" + i));
        IllegalStateException failure = new IllegalStateException("OTSServerBusy");
        TableService failingSecondPage =
                new ForwardingTableService(service) {
                    @Override
                    public CompletableFuture<RangePage> getRangeAsync(
                            KeyRange range, Set<String> columns, int limit) {
                        return service.ranges.isEmpty()
                                ? super.getRangeAsync(range, columns, limit)
                                : CompletableFuture.failedFuture(failure);
                    }
                };

        java.util.Iterator<Row> rows =
                new TableReader(failingSecondPage, 0)
                        .rows(new KeyRange(key("r", 0), key("r", 7)), Set.of());

        for (int i = 0; i < 3; i++) {
            assertThat(rows.next().getLatestColumn("v").getValue().asString()).isEqualTo("v" + i);
        }
        assertThatThrownBy(rows::hasNext).isSameAs(failure);
    }
}
