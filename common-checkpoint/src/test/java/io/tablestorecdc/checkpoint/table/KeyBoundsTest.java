package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyBounds.Bound;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class KeyBoundsTest {

    private static final List<PrimaryKeySchema> TWO =
            List.of(
                    new PrimaryKeySchema("id", PrimaryKeyType.STRING),
                    new PrimaryKeySchema("n", PrimaryKeyType.INTEGER));
    private static final List<PrimaryKeySchema> ONE =
            List.of(new PrimaryKeySchema("n", PrimaryKeyType.INTEGER));

    private static PrimaryKey key(List<PrimaryKeySchema> schema, PrimaryKeyValue... values) {
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (int i = 0; i < schema.size(); i++) {
            key.addPrimaryKeyColumn(new PrimaryKeyColumn(schema.get(i).getName(), values[i]));
        }
        return key.build();
    }

    private static PrimaryKeyValue s(String v) {
        return PrimaryKeyValue.fromString(v);
    }

    private static PrimaryKeyValue l(long v) {
        return PrimaryKeyValue.fromLong(v);
    }

    /** Splits that cover the key space, cut at the given keys. */
    private static List<KeyRange> splits(List<PrimaryKeySchema> schema, List<PrimaryKey> cuts) {
        PrimaryKeyValue[] min = new PrimaryKeyValue[schema.size()];
        PrimaryKeyValue[] max = new PrimaryKeyValue[schema.size()];
        java.util.Arrays.fill(min, PrimaryKeyValue.INF_MIN);
        java.util.Arrays.fill(max, PrimaryKeyValue.INF_MAX);
        List<PrimaryKey> points = new ArrayList<>();
        points.add(key(schema, min));
        points.addAll(new TreeSet<>(cuts));
        points.add(key(schema, max));
        List<KeyRange> ranges = new ArrayList<>();
        for (int i = 0; i + 1 < points.size(); i++) {
            ranges.add(new KeyRange(points.get(i), points.get(i + 1)));
        }
        return ranges;
    }

    private static List<PrimaryKey> inRanges(List<PrimaryKey> keys, List<KeyRange> ranges) {
        List<PrimaryKey> found = new ArrayList<>();
        for (KeyRange range : ranges) {
            for (PrimaryKey key : keys) {
                if (key.compareTo(range.inclusiveStart()) >= 0
                        && key.compareTo(range.exclusiveEnd()) < 0) {
                    found.add(key);
                }
            }
        }
        return found;
    }

    private static Predicate<Long> matches(Optional<Bound> lower, Optional<Bound> upper) {
        return v ->
                lower.map(b -> b.inclusive() ? v >= b.value().asLong() : v > b.value().asLong())
                                .orElse(true)
                        && upper.map(
                                        b ->
                                                b.inclusive()
                                                        ? v <= b.value().asLong()
                                                        : v < b.value().asLong())
                                .orElse(true);
    }

    private static Optional<Bound> randomBound(Random random) {
        return random.nextInt(3) == 0
                ? Optional.empty()
                : Optional.of(new Bound(l(random.nextInt(12)), random.nextBoolean()));
    }

    @Test
    void theRestrictedSplitsHoldExactlyTheKeysInsideTheBoundsOnceEach() {
        Random random = new Random(20261203L);
        for (int round = 0; round < 500; round++) {
            List<PrimaryKey> keys = new ArrayList<>();
            for (String id : List.of("a", "b", "c")) {
                for (long n = 0; n < 12; n++) {
                    keys.add(key(TWO, s(id), l(n)));
                }
            }
            List<PrimaryKey> cuts = new ArrayList<>();
            for (int c = random.nextInt(5); c > 0; c--) {
                cuts.add(keys.get(random.nextInt(keys.size())));
            }
            boolean withPrefix = random.nextBoolean();
            String id = List.of("a", "b", "c").get(random.nextInt(3));
            Optional<Bound> lower = randomBound(random);
            Optional<Bound> upper = randomBound(random);
            KeyBounds bounds =
                    withPrefix
                            ? new KeyBounds(List.of(s(id)), lower, upper)
                            : new KeyBounds(
                                    List.of(),
                                    lower.map(
                                            b ->
                                                    new Bound(
                                                            s(
                                                                    "abc"
                                                                            .substring(
                                                                                    0,
                                                                                    1
                                                                                            + (int)
                                                                                                            b.value()
                                                                                                                    .asLong()
                                                                                                    % 3)),
                                                            b.inclusive())),
                                    Optional.empty());

            List<PrimaryKey> found = inRanges(keys, bounds.restrict(splits(TWO, cuts), TWO));

            List<PrimaryKey> expected = new ArrayList<>();
            for (PrimaryKey key : keys) {
                String keyId = key.getPrimaryKeyColumn(0).getValue().asString();
                long n = key.getPrimaryKeyColumn(1).getValue().asLong();
                boolean match =
                        withPrefix
                                ? keyId.equals(id) && matches(lower, upper).test(n)
                                : bounds.lower()
                                        .map(
                                                b -> {
                                                    int c = keyId.compareTo(b.value().asString());
                                                    return b.inclusive() ? c >= 0 : c > 0;
                                                })
                                        .orElse(true);
                if (match) {
                    expected.add(key);
                }
            }
            assertThat(found).as(bounds.describe(TWO) + " over cuts " + cuts).isEqualTo(expected);
        }
    }

    @Test
    void aSingleColumnKeyIsBoundedByItsSuccessorWhereABoundIsInclusiveAbove() {
        List<PrimaryKey> keys = new ArrayList<>();
        for (long n = 0; n < 10; n++) {
            keys.add(key(ONE, l(n)));
        }
        KeyBounds bounds =
                new KeyBounds(
                        List.of(),
                        Optional.of(new Bound(l(3), false)),
                        Optional.of(new Bound(l(6), true)));

        assertThat(inRanges(keys, bounds.restrict(splits(ONE, List.of(key(ONE, l(5)))), ONE)))
                .containsExactly(key(ONE, l(4)), key(ONE, l(5)), key(ONE, l(6)));
        assertThat(bounds.describe(ONE)).isEqualTo("n > 3 AND n <= 6");
    }

    @Test
    void aFullKeyEqualityReadsThatOneKey() {
        KeyBounds bounds = new KeyBounds(List.of(s("b"), l(4)), Optional.empty(), Optional.empty());
        List<PrimaryKey> keys =
                List.of(key(TWO, s("b"), l(3)), key(TWO, s("b"), l(4)), key(TWO, s("b"), l(5)));

        assertThat(inRanges(keys, bounds.restrict(splits(TWO, List.of()), TWO)))
                .containsExactly(key(TWO, s("b"), l(4)));
        assertThat(bounds.describe(TWO)).isEqualTo("id = 'b' AND n = 4");
    }

    @Test
    void splitsOutsideTheBoundsAreDroppedAndNoBoundsKeepThemAll() {
        List<KeyRange> splits =
                splits(TWO, List.of(key(TWO, s("b"), l(0)), key(TWO, s("c"), l(0))));
        KeyBounds onlyA = new KeyBounds(List.of(s("a")), Optional.empty(), Optional.empty());

        assertThat(onlyA.restrict(splits, TWO)).hasSize(1);
        assertThat(KeyBounds.all().restrict(splits, TWO)).isEqualTo(splits);
        assertThat(KeyBounds.all().describe(TWO)).isEqualTo("all keys");
    }

    @Test
    void boundsOfTheWrongTypeOrOnTooManyColumnsAreRefused() {
        KeyBounds wrongType = new KeyBounds(List.of(l(1)), Optional.empty(), Optional.empty());
        assertThatThrownBy(() -> wrongType.range(TWO))
                .hasMessage(
                        "A bound on primary-key column id has a INTEGER value; the column is"
                                + " STRING");
        KeyBounds tooMany =
                new KeyBounds(List.of(l(1)), Optional.of(new Bound(l(2), true)), Optional.empty());
        assertThatThrownBy(() -> tooMany.range(ONE))
                .hasMessage("Key bounds on 2 columns for a primary key of 1 columns");
    }
}
