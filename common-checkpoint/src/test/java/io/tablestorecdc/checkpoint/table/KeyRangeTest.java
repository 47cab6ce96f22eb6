package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.testing.FakeTableService;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyRangeTest {

    private static PrimaryKey key(PrimaryKeyValue id, PrimaryKeyValue n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", id)
                .addPrimaryKeyColumn("n", n)
                .build();
    }

    private static final KeyRange ALL =
            new KeyRange(
                    key(PrimaryKeyValue.INF_MIN, PrimaryKeyValue.INF_MIN),
                    key(PrimaryKeyValue.INF_MAX, PrimaryKeyValue.INF_MAX));

    @Test
    void resumingAfterEachRowReadsTheRestOnceWithNoneSkipped() {
        FakeTableService service = new FakeTableService(2);
        for (String id : List.of("a", "a\u0000", "b")) {
            for (long n : List.of(Long.MIN_VALUE, -1L, 0L, 5L, Long.MAX_VALUE)) {
                service.put(id, n, id + n);
            }
        }
        TableReader reader = new TableReader(service, 0);
        List<PrimaryKey> all = keys(reader.rows(ALL, Set.of()));
        assertThat(all).hasSize(15);

        for (int i = 0; i < all.size(); i++) {
            Optional<KeyRange> rest = ALL.remainderAfter(all.get(i));
            List<PrimaryKey> after =
                    rest.map(r -> keys(reader.rows(r, Set.of()))).orElse(List.of());
            assertThat(after).as("after row %s", i).isEqualTo(all.subList(i + 1, all.size()));
        }
    }

    @Test
    void nothingRemainsAfterTheLastKeyBeforeTheEnd() {
        KeyRange range =
                new KeyRange(
                        key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.fromLong(0)),
                        key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.fromLong(5)));

        assertThat(
                        range.remainderAfter(
                                key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.fromLong(4))))
                .isEmpty();
        assertThat(
                        range.remainderAfter(
                                key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.fromLong(3))))
                .contains(
                        new KeyRange(
                                key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.fromLong(4)),
                                range.exclusiveEnd()));
    }

    @Test
    void aKeyOutsideTheRangeOrNotARowsKeyIsRefused() {
        KeyRange range =
                new KeyRange(
                        key(PrimaryKeyValue.fromString("b"), PrimaryKeyValue.INF_MIN),
                        key(PrimaryKeyValue.fromString("c"), PrimaryKeyValue.INF_MIN));

        assertThatThrownBy(
                        () ->
                                range.remainderAfter(
                                        key(
                                                PrimaryKeyValue.fromString("a"),
                                                PrimaryKeyValue.fromLong(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lies outside the range");
        assertThatThrownBy(
                        () ->
                                range.remainderAfter(
                                        key(
                                                PrimaryKeyValue.fromString("b"),
                                                PrimaryKeyValue.INF_MAX)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a row's key");
    }

    private static List<PrimaryKey> keys(
            Iterator<com.alicloud.openservices.tablestore.model.Row> rows) {
        List<PrimaryKey> keys = new ArrayList<>();
        rows.forEachRemaining(r -> keys.add(r.getPrimaryKey()));
        return keys;
    }
}
