package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bytes of {@link KeyBounds}, for engines that ship the bounds of a scan to where its splits
 * are planned (the SDK's values are not serializable). Same versioning as {@link KeyRangeCodec}.
 *
 * <p>Layout (version 1): version, prefix count (short) and values, then for the lower and then the
 * upper bound a presence flag and, when present, the value and an inclusive flag. Values as {@link
 * KeyRangeCodec} writes them.
 */
@Internal
public final class KeyBoundsCodec {

    private KeyBoundsCodec() {}

    public static byte[] encode(KeyBounds bounds) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(KeyRangeCodec.VERSION);
            out.writeShort(bounds.prefix().size());
            for (PrimaryKeyValue value : bounds.prefix()) {
                KeyRangeCodec.writeValue(out, "of the prefix", value);
            }
            writeBound(out, bounds.lower());
            writeBound(out, bounds.upper());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * @throws IllegalArgumentException for bytes of another format version, or not key bounds
     */
    public static KeyBounds decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            KeyRangeCodec.checkVersion(in.readUnsignedByte(), "Key bounds");
            int count = in.readUnsignedShort();
            List<PrimaryKeyValue> prefix = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                prefix.add(KeyRangeCodec.readValue(in));
            }
            KeyBounds bounds = new KeyBounds(prefix, readBound(in), readBound(in));
            if (in.available() > 0) {
                throw new IllegalArgumentException(
                        "Key bounds have " + in.available() + " bytes after their end.");
            }
            return bounds;
        } catch (IOException e) {
            throw new IllegalArgumentException("Bytes that are not key bounds: " + e, e);
        }
    }

    private static void writeBound(DataOutputStream out, Optional<KeyBounds.Bound> bound)
            throws IOException {
        out.writeBoolean(bound.isPresent());
        if (bound.isPresent()) {
            KeyRangeCodec.writeValue(out, "of a bound", bound.get().value());
            out.writeBoolean(bound.get().inclusive());
        }
    }

    private static Optional<KeyBounds.Bound> readBound(DataInputStream in) throws IOException {
        if (!in.readBoolean()) {
            return Optional.empty();
        }
        PrimaryKeyValue value = KeyRangeCodec.readValue(in);
        return Optional.of(new KeyBounds.Bound(value, in.readBoolean()));
    }
}
