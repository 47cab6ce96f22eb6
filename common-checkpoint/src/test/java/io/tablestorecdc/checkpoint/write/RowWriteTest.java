package io.tablestorecdc.checkpoint.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Coalescing: the composed change of a key has the result of its changes applied in order. */
class RowWriteTest {

    private static final RowKey K = RowKey.of("id", CellValue.ofInteger(1));
    private static final SequenceInfo NONE = SequenceInfo.NONE;

    private static CellValue v(long n) {
        return CellValue.ofInteger(n);
    }

    @Test
    void putThenUpdateIsOnePutOfTheMergedColumns() {
        RowWrite c =
                RowWrite.put(K, Map.of("a", v(1), "b", v(2)), NONE)
                        .then(RowWrite.update(K, Map.of("b", v(3), "c", v(4)), Set.of("a"), NONE));
        assertThat(c.kind()).isEqualTo(RowWrite.Kind.PUT);
        assertThat(c.puts())
                .containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("b", v(3), "c", v(4))));
    }

    @Test
    void anythingThenDeleteIsDelete() {
        RowWrite delete = RowWrite.delete(K, NONE);
        assertThat(RowWrite.put(K, Map.of("a", v(1)), NONE).then(delete)).isEqualTo(delete);
        assertThat(RowWrite.update(K, Map.of("a", v(1)), Set.of(), NONE).then(delete))
                .isEqualTo(delete);
    }

    @Test
    void deleteThenPutIsThePut() {
        RowWrite put = RowWrite.put(K, Map.of("a", v(1)), NONE);
        assertThat(RowWrite.delete(K, NONE).then(put)).isEqualTo(put);
    }

    @Test
    void deleteThenUpdateIsAPutOfThePutColumns() {
        RowWrite c =
                RowWrite.delete(K, NONE)
                        .then(RowWrite.update(K, Map.of("a", v(1)), Set.of("b"), NONE));
        assertThat(c).isEqualTo(RowWrite.put(K, Map.of("a", v(1)), NONE));
        RowWrite onlyDeletes =
                RowWrite.delete(K, NONE).then(RowWrite.update(K, Map.of(), Set.of("b"), NONE));
        assertThat(onlyDeletes.kind()).isEqualTo(RowWrite.Kind.DELETE);
    }

    @Test
    void updateThenUpdateMergesWithTheLaterWinningPerColumn() {
        RowWrite c =
                RowWrite.update(K, Map.of("a", v(1), "b", v(2)), Set.of("c", "d"), NONE)
                        .then(RowWrite.update(K, Map.of("a", v(9), "c", v(3)), Set.of("b"), NONE));
        assertThat(c.kind()).isEqualTo(RowWrite.Kind.UPDATE);
        assertThat(c.puts()).containsOnly(Map.entry("a", v(9)), Map.entry("c", v(3)));
        assertThat(c.deletes()).containsExactly("b", "d");
    }

    @Test
    void aColumnBothSetAndDeletedIsRefused() {
        assertThatThrownBy(() -> RowWrite.update(K, Map.of("a", v(1)), Set.of("a"), NONE))
                .hasMessageContaining("Column a of row (id=1) is both set and deleted");
    }

    @Test
    void toStringNamesKeyAndColumnsButNoValue() {
        RowWrite w =
                RowWrite.update(
                        K, Map.of("secret_col", CellValue.ofString("hidden")), Set.of("b"), NONE);
        assertThat(w.toString()).contains("(id=1)", "secret_col", "b").doesNotContain("hidden");
    }

    /** Seeded random sequences: coalesced through the writer == applied one by one. */
    @Test
    void coalescedResultEqualsSequentialApplicationInArrivalOrder() {
        for (int seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            List<RowWrite> changes = randomChanges(random, 40, false);
            Map<RowKey, Map<String, CellValue>> expected = new LinkedHashMap<>();
            changes.forEach(c -> FakeTableWriteClient.apply(expected, c));

            FakeTableWriteClient fake = new FakeTableWriteClient();
            int maxRows = 1 + random.nextInt(5);
            BufferedTableWriter writer = writer(fake, maxRows);
            for (RowWrite c : changes) {
                writer.write(c);
                if (random.nextInt(10) == 0) {
                    writer.flush();
                }
            }
            writer.flush();
            assertThat(fake.rows).as("seed %d", seed).isEqualTo(expected);
            fake.requests.forEach(r -> assertThat(r.size()).isLessThanOrEqualTo(maxRows));
        }
    }

    /** Changes that arrive out of their {@code _seq} order apply in {@code _seq} order. */
    @Test
    void coalescedResultEqualsApplicationInSequenceOrderWithinABuffer() {
        for (int seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            List<RowWrite> changes = randomChanges(random, 30, true);
            List<RowWrite> inOrder = new ArrayList<>(changes);
            inOrder.sort(Comparator.comparing(RowWrite::sequence));
            Map<RowKey, Map<String, CellValue>> expected = new HashMap<>();
            inOrder.forEach(c -> FakeTableWriteClient.apply(expected, c));

            FakeTableWriteClient fake = new FakeTableWriteClient();
            BufferedTableWriter writer = writer(fake, 200);
            changes.forEach(writer::write);
            writer.flush();
            assertThat(fake.rows).as("seed %d", seed).isEqualTo(expected);
            assertThat(fake.requests).hasSize(1);
        }
    }

    private static BufferedTableWriter writer(FakeTableWriteClient fake, int maxRows) {
        return new BufferedTableWriter(
                fake,
                "t",
                WriteSettings.defaults().withMaxRows(maxRows),
                new WriteCounters(),
                d -> {});
    }

    private static List<RowWrite> randomChanges(Random random, int count, boolean shuffledSeq) {
        List<RowWrite> out = new ArrayList<>();
        List<String> columns = List.of("a", "b", "c");
        for (int i = 0; i < count; i++) {
            RowKey key = RowKey.of("id", CellValue.ofInteger(random.nextInt(4)));
            SequenceInfo seq = shuffledSeq ? new SequenceInfo(1, 1000 + i, 0) : NONE;
            int kind = random.nextInt(10);
            if (kind < 2) {
                out.add(RowWrite.delete(key, seq));
                continue;
            }
            Map<String, CellValue> puts = new HashMap<>();
            java.util.Set<String> deletes = new java.util.HashSet<>();
            for (String column : columns) {
                int what = random.nextInt(3);
                if (what == 0) {
                    puts.put(column, v(random.nextInt(10)));
                } else if (what == 1 && kind >= 5) {
                    deletes.add(column);
                }
            }
            if (kind < 5) {
                out.add(RowWrite.put(key, puts, seq));
            } else if (puts.isEmpty() && deletes.isEmpty()) {
                out.add(RowWrite.update(key, Map.of("a", v(0)), Set.of(), seq));
            } else {
                out.add(RowWrite.update(key, puts, deletes, seq));
            }
        }
        if (shuffledSeq) {
            Collections.shuffle(out, random);
        }
        return out;
    }
}
