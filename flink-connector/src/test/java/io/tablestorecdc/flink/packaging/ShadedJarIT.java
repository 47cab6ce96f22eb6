package io.tablestorecdc.flink.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.emulator.testkit.ShadedJarLicences;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.shaded.asm9.org.objectweb.asm.ClassReader;
import org.apache.flink.shaded.asm9.org.objectweb.asm.ClassVisitor;
import org.apache.flink.shaded.asm9.org.objectweb.asm.FieldVisitor;
import org.apache.flink.shaded.asm9.org.objectweb.asm.MethodVisitor;
import org.apache.flink.shaded.asm9.org.objectweb.asm.Opcodes;
import org.apache.flink.shaded.asm9.org.objectweb.asm.Type;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The attached shaded jar drops into a stock Flink of its line: it links against that Flink, holds
 * the connector, the core and the SDK, relocates the SDK's own dependencies, brings no Flink, slf4j
 * or log4j classes, and carries our LICENSE and a NOTICE that names what it bundles.
 */
class ShadedJarIT {

    /**
     * The build sets the jar's path only in the integration-test execution; a {@code -Dtest}
     * selection also runs this class in the test phase, before the jar is built, and skips it
     * there.
     */
    @BeforeAll
    static void onlyOnceTheJarIsBuilt() {
        assumeTrue(System.getProperty("tsc.shaded.jar") != null, "runs in integration-test");
    }

    private static final List<String> RELOCATED =
            List.of(
                    "com/google/common/",
                    "com/google/gson/",
                    "org/joda/time/",
                    "com/lmax/disruptor/",
                    "com/github/benmanes/caffeine/",
                    "org/apache/commons/codec/",
                    "org/apache/commons/logging/");

    /**
     * Classes whose only remaining mention is a string literal the relocation cannot see (a
     * resource name pattern of commons-codec's phonetic rules, which the SDK does not use).
     */
    private static final List<String> KNOWN_LITERALS =
            List.of("io/tablestorecdc/shaded/org/apache/commons/codec/language/bm/Lang.class");

    private static Path jar() {
        Path jar = Path.of(System.getProperty("tsc.shaded.jar", "missing"));
        assertThat(jar).as("the shaded jar (run through mvn verify)").exists();
        return jar;
    }

    @Test
    void holdsTheConnectorTheCoreAndTheSdkButNoFlink() throws IOException {
        List<String> names = entries();

        assertThat(names)
                .contains(
                        "io/tablestorecdc/flink/source/TablestoreCdcSource.class",
                        "io/tablestorecdc/checkpoint/tunnel/SdkTunnelProxy.class",
                        "com/alicloud/openservices/tablestore/TunnelClient.class");
        assertThat(names)
                .noneMatch(n -> n.startsWith("org/apache/flink/"))
                .noneMatch(n -> n.startsWith("org/slf4j/"))
                .noneMatch(n -> n.startsWith("org/apache/logging/log4j/"));
        for (String prefix : RELOCATED) {
            assertThat(names).as(prefix).noneMatch(n -> n.startsWith(prefix));
        }
    }

    @Test
    void everyReferenceToARelocatedPackageIsRewritten() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (JarFile jar = new JarFile(jar().toFile())) {
            Enumeration<JarEntry> all = jar.entries();
            while (all.hasMoreElements()) {
                JarEntry entry = all.nextElement();
                if (entry.getName().endsWith(".class")
                        && !KNOWN_LITERALS.contains(entry.getName())) {
                    String text = read(jar, entry);
                    for (String prefix : RELOCATED) {
                        if (text.replace("io/tablestorecdc/shaded/" + prefix, "")
                                .contains(prefix)) {
                            offenders.add(entry.getName() + " -> " + prefix);
                        }
                    }
                }
            }
        }
        assertThat(offenders).isEmpty();
    }

    /**
     * Links the jar against the Flink this build tests on (Flink 1.20 in flink-connector, Flink 2.x
     * in flink-connector-2): every Flink class, constructor, method and field that a class in the
     * jar names exists there, so no {@code NoClassDefFoundError} or {@code NoSuchMethodError} waits
     * for a code path the other tests do not take.
     */
    @Test
    void everyFlinkMemberTheJarUsesExistsInTheFlinkItIsBuiltFor() throws IOException {
        FlinkReferences references = new FlinkReferences();
        try (JarFile jar = new JarFile(jar().toFile())) {
            Enumeration<JarEntry> all = jar.entries();
            while (all.hasMoreElements()) {
                JarEntry entry = all.nextElement();
                if (entry.getName().startsWith("io/tablestorecdc/")
                        && entry.getName().endsWith(".class")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        new ClassReader(in).accept(references.visitor(), ClassReader.SKIP_DEBUG);
                    }
                }
            }
        }
        assertThat(references.members)
                .as("Flink members the jar uses")
                .anyMatch(m -> m.startsWith("org/apache/flink/api/connector/sink2/"))
                .anyMatch(m -> m.startsWith("org/apache/flink/connector/base/source/reader/"))
                .anyMatch(m -> m.startsWith("org/apache/flink/table/"));
        List<String> missing = new ArrayList<>();
        for (String member : references.members) {
            if (!exists(member)) {
                missing.add(member);
            }
        }
        assertThat(missing).as("Flink members missing from the Flink on the classpath").isEmpty();
    }

    @Test
    void registersTheSqlFactory() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            JarEntry services =
                    jar.getJarEntry("META-INF/services/org.apache.flink.table.factories.Factory");
            assertThat(services).isNotNull();
            assertThat(read(jar, services))
                    .contains("io.tablestorecdc.flink.table.TablestoreCdcTableFactory");
        }
    }

    @Test
    void carriesOurLicenseAndANoticeNamingEveryBundledArtifact() throws IOException {
        ShadedJarLicences.check(
                jar(),
                "tablestore-cdc Flink connector",
                List.of("the Tablestore Java SDK", "com.google.protobuf:protobuf-java"),
                List.of("LICENSE.protobuf"));
    }

    /**
     * Collects {@code owner}, {@code owner#name descriptor} of every Flink type and member used.
     */
    private static final class FlinkReferences {
        private final Set<String> members = new TreeSet<>();

        ClassVisitor visitor() {
            return new ClassVisitor(Opcodes.ASM9) {
                @Override
                public void visit(
                        int version,
                        int access,
                        String name,
                        String signature,
                        String superName,
                        String[] interfaces) {
                    type(superName);
                    for (String each : interfaces) {
                        type(each);
                    }
                }

                @Override
                public MethodVisitor visitMethod(
                        int access,
                        String name,
                        String descriptor,
                        String signature,
                        String[] exceptions) {
                    descriptor(descriptor);
                    return new MethodVisitor(Opcodes.ASM9) {
                        @Override
                        public void visitMethodInsn(
                                int opcode,
                                String owner,
                                String name,
                                String descriptor,
                                boolean isInterface) {
                            member(owner, name, descriptor);
                        }

                        @Override
                        public void visitFieldInsn(
                                int opcode, String owner, String name, String descriptor) {
                            member(owner, name, descriptor);
                        }

                        @Override
                        public void visitTypeInsn(int opcode, String type) {
                            type(type);
                        }

                        @Override
                        public void visitLdcInsn(Object value) {
                            if (value instanceof Type && ((Type) value).getSort() == Type.OBJECT) {
                                type(((Type) value).getInternalName());
                            }
                        }
                    };
                }

                @Override
                public FieldVisitor visitField(
                        int access,
                        String name,
                        String descriptor,
                        String signature,
                        Object value) {
                    descriptor(descriptor);
                    return null;
                }
            };
        }

        private void member(String owner, String name, String descriptor) {
            if (isFlink(owner)) {
                members.add(owner + "#" + name + " " + descriptor);
            }
            descriptor(descriptor);
        }

        private void descriptor(String descriptor) {
            Type type = Type.getType(descriptor);
            if (type.getSort() == Type.METHOD) {
                descriptor(type.getReturnType().getDescriptor());
                for (Type argument : type.getArgumentTypes()) {
                    descriptor(argument.getDescriptor());
                }
            } else if (type.getSort() == Type.ARRAY) {
                descriptor(type.getElementType().getDescriptor());
            } else if (type.getSort() == Type.OBJECT) {
                type(type.getInternalName());
            }
        }

        private void type(String internalName) {
            if (internalName != null && internalName.startsWith("[")) {
                descriptor(internalName);
            } else if (internalName != null && isFlink(internalName)) {
                members.add(internalName);
            }
        }

        private static boolean isFlink(String internalName) {
            return internalName.startsWith("org/apache/flink/");
        }
    }

    /** Whether a type, or a member of a type or of one of its supertypes, exists. */
    private static boolean exists(String reference) {
        int hash = reference.indexOf('#');
        String owner = hash < 0 ? reference : reference.substring(0, hash);
        Class<?> type;
        try {
            type =
                    Class.forName(
                            owner.replace('/', '.'), false, ShadedJarIT.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        if (hash < 0) {
            return true;
        }
        String member = reference.substring(hash + 1);
        try {
            return declares(type, member, new HashSet<>());
        } catch (LinkageError e) {
            return false; // a signature names a class this Flink lacks
        }
    }

    private static boolean declares(Class<?> type, String member, Set<Class<?>> seen) {
        if (type == null || !seen.add(type)) {
            return false;
        }
        for (Method m : type.getDeclaredMethods()) {
            if (member.equals(m.getName() + " " + Type.getMethodDescriptor(m))) {
                return true;
            }
        }
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (member.equals("<init> " + Type.getConstructorDescriptor(c))) {
                return true;
            }
        }
        for (Field f : type.getDeclaredFields()) {
            if (member.equals(f.getName() + " " + Type.getDescriptor(f.getType()))) {
                return true;
            }
        }
        if (declares(type.getSuperclass(), member, seen)) {
            return true;
        }
        for (Class<?> each : type.getInterfaces()) {
            if (declares(each, member, seen)) {
                return true;
            }
        }
        // Methods of Object reached through an interface type.
        return type.isInterface() && declares(Object.class, member, seen);
    }

    private static List<String> entries() throws IOException {
        List<String> names = new ArrayList<>();
        try (JarFile jar = new JarFile(jar().toFile())) {
            jar.stream().forEach(e -> names.add(e.getName()));
        }
        return names;
    }

    private static JarEntry entry(JarFile jar, String name) {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        return entry;
    }

    private static String read(JarFile jar, JarEntry entry) throws IOException {
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
