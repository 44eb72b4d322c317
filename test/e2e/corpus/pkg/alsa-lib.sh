# alsa-lib: the PCM's snd_pcm_lock/snd_pcm_unlock (src/pcm/pcm_local.h) are static inline
# wrappers of pthread_mutex_lock that check a flag first.
RCL_CONF='lock-fn=snd_pcm_lock\nunlock-fn=snd_pcm_unlock'
CONFIGURE='./configure CC="$CC" --disable-python --disable-topology'
