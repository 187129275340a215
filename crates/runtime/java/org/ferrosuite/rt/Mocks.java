package org.ferrosuite.rt;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One Mockito mock of a test during the search, with its stubs and the calls it got.
 *
 * <p>The mock is made by Mockito (found on the worker's class path by reflection, so that this
 * runtime compiles and runs without it) with a default answer that is this object: a call of a
 * stubbed method returns its answers in order, the last one repeated; any other call returns
 * 0, false or null (a stub the search then adds answers so, and the test behaves as it did). Every call is counted by method name and descriptor: the host reads the counts
 * after the test ({@link #calledMethods}, {@link #callCounts}) and the search makes the stubs
 * follow them. {@code toString()} is neither stubbed nor counted: it returns
 * {@link #TO_STRING}, as emitted tests do.
 *
 * <p>A mock called more than {@link #CALL_LIMIT} times for one method aborts the test as the
 * loop limit does: code that loops on what a mock answers (an integrator stepping on a mocked
 * function) would otherwise spend the loop limit's iterations on Mockito calls of a few
 * microseconds each.
 */
public final class Mocks implements InvocationHandler {
    /** What {@code toString()} of a mock returns. */
    public static final String TO_STRING = "mock";

    /** Calls of one method of one mock after which the test is aborted. */
    public static final int CALL_LIMIT = 1000;

    private static Method mockMethod;
    /** {@code Mockito.withSettings()} and the settings' methods ({@code mockMaker} when the
     * Mockito has it). */
    private static Method withSettings;
    private static Method defaultAnswer;
    private static Method stubOnly;
    private static Method mockMaker;
    private static Class<?> answerType;
    private static Method getMethod;
    private static String unavailable;

    /** The key (name and descriptor) of each method mocks were called for. */
    private static final Map<Method, String> KEYS = new HashMap<Method, String>();

    private final Map<String, Object[]> answers = new HashMap<String, Object[]>();
    private final Map<String, int[]> calls = new TreeMap<String, int[]>();
    private Object mock;

    private Mocks() {}

    private static synchronized void init() {
        if (mockMethod != null || unavailable != null) return;
        try {
            ClassLoader system = ClassLoader.getSystemClassLoader();
            Class<?> mockito = Class.forName("org.mockito.Mockito", true, system);
            answerType = Class.forName("org.mockito.stubbing.Answer", true, system);
            Class<?> invocation = Class.forName("org.mockito.invocation.InvocationOnMock", true, system);
            getMethod = invocation.getMethod("getMethod");
            Class<?> settings = Class.forName("org.mockito.MockSettings", true, system);
            withSettings = mockito.getMethod("withSettings");
            defaultAnswer = settings.getMethod("defaultAnswer", answerType);
            // A stub-only mock does not record its calls for verification: cheaper per call.
            stubOnly = settings.getMethod("stubOnly");
            mockMethod = mockito.getMethod("mock", Class.class, settings);
            // Mockito 4.8 and later choose the mock maker per mock: the subclass one, as
            // Mockito 2 and 3 use by default, makes a mock in microseconds where the inline one
            // (Mockito 5's default) retransforms classes.
            try {
                mockMaker = settings.getMethod("mockMaker", String.class);
            } catch (NoSuchMethodException older) {
                mockMaker = null;
            }
        } catch (Throwable t) {
            mockMethod = null;
            unavailable = "Mockito is not on the worker's class path: " + t;
        }
    }

    /**
     * A mock of {@code type} whose method {@code keys[i]} (name followed by descriptor)
     * answers {@code values[i]} (boxed for primitive returns; empty for void methods).
     */
    public static Mocks create(Class<?> type, String[] keys, Object[][] values) throws Throwable {
        init();
        if (mockMethod == null) throw new IllegalStateException(unavailable);
        Mocks m = new Mocks();
        for (int i = 0; i < keys.length; i++) m.answers.put(keys[i], values[i]);
        Object answer =
                Proxy.newProxyInstance(answerType.getClassLoader(), new Class<?>[] {answerType}, m);
        // Mockito defines the mock class in the most specific of the loaders of the type, of
        // itself and of the thread's context: with the type's loader as the context, that is
        // the type's own loader (it sees Mockito), where a package-private type can be
        // subclassed.
        Thread self = Thread.currentThread();
        ClassLoader context = self.getContextClassLoader();
        if (type.getClassLoader() != null) self.setContextClassLoader(type.getClassLoader());
        try {
            Object s = withSettings.invoke(null);
            s = defaultAnswer.invoke(s, answer);
            s = stubOnly.invoke(s);
            if (mockMaker != null) s = mockMaker.invoke(s, "mock-maker-subclass");
            m.mock = mockMethod.invoke(null, type, s);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } finally {
            self.setContextClassLoader(context);
        }
        return m;
    }

    /** The mock. */
    public Object mock() {
        return mock;
    }

    /** The methods called (name followed by descriptor), sorted. */
    public String[] calledMethods() {
        return calls.keySet().toArray(new String[0]);
    }

    /** The call count of each method of {@link #calledMethods}, in the same order. */
    public int[] callCounts() {
        int[] out = new int[calls.size()];
        int i = 0;
        for (int[] c : calls.values()) out[i++] = c[0];
        return out;
    }

    /** The default answer: {@code Answer.answer(InvocationOnMock)} of the proxy. */
    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            if (method.getName().equals("equals")) return proxy == args[0];
            if (method.getName().equals("hashCode")) return System.identityHashCode(proxy);
            return "answer of " + TO_STRING;
        }
        Object invocation = args[0];
        Method called = (Method) getMethod.invoke(invocation);
        if (called.getName().equals("toString") && called.getParameterTypes().length == 0) {
            return TO_STRING;
        }
        String key;
        synchronized (KEYS) {
            key = KEYS.get(called);
            if (key == null) {
                key = called.getName() + descriptor(called);
                KEYS.put(called, key);
            }
        }
        int[] count = calls.get(key);
        if (count == null) {
            count = new int[1];
            calls.put(key, count);
        }
        if (++count[0] > CALL_LIMIT) {
            Probe.abort = true;
            throw new AbortError("mock call limit of " + CALL_LIMIT + " calls of " + key
                + " exceeded");
        }
        Object[] given = answers.get(key);
        if (given != null) {
            if (given.length == 0) return null;
            return given[Math.min(count[0], given.length) - 1];
        }
        return zero(called.getReturnType());
    }

    /** The value of an unstubbed call: 0, false or null (what the search's stubs then take). */
    private static Object zero(Class<?> c) {
        if (!c.isPrimitive() || c == void.class) return null;
        if (c == boolean.class) return Boolean.FALSE;
        if (c == int.class) return 0;
        if (c == long.class) return 0L;
        if (c == double.class) return 0.0;
        if (c == float.class) return 0.0f;
        if (c == char.class) return (char) 0;
        if (c == short.class) return (short) 0;
        return (byte) 0;
    }

    /** The JVM descriptor of a method ({@code (ILjava/lang/String;)V}). */
    static String descriptor(Method m) {
        StringBuilder b = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) b.append(Types.descriptor(p));
        return b.append(')').append(Types.descriptor(m.getReturnType())).toString();
    }
}
