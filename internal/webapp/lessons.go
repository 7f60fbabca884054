package webapp

import (
	"encoding/json"
	"fmt"

	"github.com/kafkasim/kafkasim/lessons"
)

// addLessons serves the bundled lessons rendered to JSON when the app is
// built, so the page's wasm needs no Markdown parser:
// /lessons/LANG/index.json (lessons.Index) and /lessons/LANG/ID.json
// (lessons.Get, a lessons.Lesson). A teacher's own file is parsed in the
// page by /wasm/lessonparse.wasm instead.
func (a *App) addLessons() error {
	for _, lang := range lessons.Langs {
		idx, err := lessons.Index(lang)
		if err != nil {
			return fmt.Errorf("bundled lessons: %v", err)
		}
		b, err := json.Marshal(idx)
		if err != nil {
			return err
		}
		a.put("/lessons/"+lang+"/index.json", b, nil, "")
		for _, s := range idx {
			l, err := lessons.Get(lang, s.ID)
			if err != nil {
				return fmt.Errorf("bundled lessons: %v", err)
			}
			if b, err = json.Marshal(l); err != nil {
				return err
			}
			a.put("/lessons/"+lang+"/"+s.ID+".json", b, nil, "")
		}
	}
	return nil
}
